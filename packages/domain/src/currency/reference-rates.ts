import { parseDecimal, type Decimal } from './decimal.js';

/** One published euro reference rate: 1 EUR = `perEur` units of `currency` on `day` (YYYY-MM-DD). */
export interface ReferenceRate {
  readonly currency: string;
  readonly day: string;
  readonly perEur: string;
}

/**
 * How far back "the nearest earlier business day" may reach. The ECB's longest regular gap is Easter
 * (Thursday to Tuesday, five days); a currency without a rate for longer (not yet quoted, or no longer
 * quoted, such as RUB after 1 March 2022) has no rate on that day, rather than a stale one.
 */
export const RATE_LOOKBACK_DAYS = 7;

const DAY_MS = 86_400_000;
const ISO_DAY = /^\d{4}-\d{2}-\d{2}$/;

/**
 * Days since 1970-01-01 of a YYYY-MM-DD date, or of the UTC date of an ISO instant.
 *
 * @example
 * epochDay('2024-03-15'); // 19797
 * epochDay('2024-03-15T23:30:00-02:00'); // 19798 (the UTC date is the 16th)
 */
export function epochDay(dayOrInstant: string): number {
  const ms = ISO_DAY.test(dayOrInstant) ? Date.parse(`${dayOrInstant}T00:00:00Z`) : Date.parse(dayOrInstant);
  if (Number.isNaN(ms)) throw new Error(`not a date: "${dayOrInstant}"`);
  return Math.floor(ms / DAY_MS);
}

/** YYYY-MM-DD of an epoch day. */
export function dayText(day: number): string {
  return new Date(day * DAY_MS).toISOString().slice(0, 10);
}

/** A rate found for a day: the rate and the (business) day it was published for. */
export interface RateOnDay {
  readonly perEur: Decimal;
  readonly day: number;
}

interface Series {
  readonly days: Int32Array;
  readonly rates: readonly Decimal[];
}

const EUR_RATE: Decimal = Object.freeze({ units: 1n, scale: 0 });

/**
 * The euro reference rates by currency and day, immutable: what conversions look rates up in. EUR is
 * always known (rate 1).
 *
 * @example
 * const rates = ReferenceRates.from([{ currency: 'USD', day: '2024-03-15', perEur: '1.0892' }]);
 * rates.rateOn('USD', epochDay('2024-03-17')); // the Friday's rate: { perEur: 1.0892, day: 19797 }
 */
export class ReferenceRates {
  private constructor(private readonly series: ReadonlyMap<string, Series>) {}

  /** A table of `rates` (any order; one rate per currency and day, else the last wins). */
  static from(rates: Iterable<ReferenceRate>): ReferenceRates {
    const byCurrency = new Map<string, Map<number, Decimal>>();
    for (const r of rates) {
      let days = byCurrency.get(r.currency);
      if (!days) byCurrency.set(r.currency, (days = new Map<number, Decimal>()));
      days.set(epochDay(r.day), parseDecimal(r.perEur));
    }
    const series = new Map<string, Series>();
    for (const [currency, days] of byCurrency) {
      const sorted = [...days.keys()].sort((a, b) => a - b);
      series.set(currency, { days: Int32Array.from(sorted), rates: sorted.map((d) => days.get(d)!) });
    }
    return new ReferenceRates(series);
  }

  /** The table with no rates (every currency but EUR unknown). */
  static readonly EMPTY = new ReferenceRates(new Map());

  /** Whether the table quotes `currency` at all (EUR: always). */
  knows(currency: string): boolean {
    return currency === 'EUR' || this.series.has(currency);
  }

  /** The currencies quoted, sorted. */
  currencies(): string[] {
    return [...this.series.keys()].sort();
  }

  /**
   * The rate of `currency` on epoch day `day`, or on the nearest earlier day that has one within
   * RATE_LOOKBACK_DAYS (weekends and TARGET holidays have none); null when there is none.
   */
  rateOn(currency: string, day: number): RateOnDay | null {
    if (currency === 'EUR') return { perEur: EUR_RATE, day };
    const s = this.series.get(currency);
    if (!s) return null;
    // The last index whose day is <= day.
    let lo = 0;
    let hi = s.days.length - 1;
    let found = -1;
    while (lo <= hi) {
      const mid = (lo + hi) >>> 1;
      if (s.days[mid]! <= day) {
        found = mid;
        lo = mid + 1;
      } else hi = mid - 1;
    }
    if (found < 0 || day - s.days[found]! > RATE_LOOKBACK_DAYS) return null;
    return { perEur: s.rates[found]!, day: s.days[found]! };
  }
}
