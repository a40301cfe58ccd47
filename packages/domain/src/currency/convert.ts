import { divideDecimal, formatDecimal, multiplyDecimal, parseDecimal, roundDecimal } from './decimal.js';
import { minorUnits } from './minor-units.js';
import { dayText, epochDay, type ReferenceRates } from './reference-rates.js';

/**
 * How an order's amounts were converted:
 * - `same`: the order is in the reporting currency (rate 1);
 * - `converted`: at the reference rates of the order's day or the nearest earlier business day;
 * - `unknown_currency`: a code the rates do not quote (spec: unknown 3-letter codes convert at 1.0);
 * - `no_rate`: a quoted currency without a rate on or shortly before the day (also 1.0).
 * The last two are counted per account for the operator.
 */
export type ConversionStatus = 'same' | 'converted' | 'unknown_currency' | 'no_rate';

/** The conversion of one order currency on one day into a reporting currency. */
export interface Conversion {
  readonly to: string;
  /** Units of `to` per unit of the order's currency, 12 decimal places (or '1'). */
  readonly rate: string;
  /** The business day whose rates were used (the older of the two when they differ); null at 1.0. */
  readonly rateDay: string | null;
  readonly status: ConversionStatus;
  /** Decimal places converted amounts are rounded to: the minor unit of `to`. */
  readonly minorUnits: number;
}

/** Decimal places of a cross rate. */
export const RATE_PLACES = 12;

/**
 * The conversion of amounts in `from` into `to` for an order placed at `orderDate` (an ISO instant:
 * its UTC date is the order's day). ECB reference rates are euro-based, so the rate is the cross rate
 * through EUR, `perEur(to) / perEur(from)`, rounded to 12 decimal places, each side taken on the
 * order's day or the nearest earlier business day (`ReferenceRates.rateOn`).
 *
 * @example
 * conversionOn(rates, 'GBP', 'USD', '2023-12-31T10:00:00Z');
 * // 29 Dec 2023 (Friday): USD 1.1050, GBP 0.86905 → { rate: '1.271503365744', rateDay: '2023-12-29', status: 'converted', minorUnits: 2 }
 */
export function conversionOn(rates: ReferenceRates, from: string, to: string, orderDate: string): Conversion {
  const units = minorUnits(to);
  const atPar = (status: ConversionStatus): Conversion => ({
    to,
    rate: '1',
    rateDay: null,
    status,
    minorUnits: units,
  });
  if (from === to) return atPar('same');
  if (!rates.knows(from)) return atPar('unknown_currency');
  const day = epochDay(orderDate);
  const a = rates.rateOn(from, day);
  const b = rates.knows(to) ? rates.rateOn(to, day) : null;
  if (!a || !b) return atPar('no_rate');
  return {
    to,
    rate: formatDecimal(divideDecimal(b.perEur, a.perEur, RATE_PLACES)),
    rateDay: dayText(Math.min(a.day, b.day)),
    status: 'converted',
    minorUnits: units,
  };
}

/**
 * An amount converted: `amount × rate` rounded half away from zero to the reporting currency's minor
 * units, exactly (the amount first rounded to 4 places, as the read model stores it). The same value
 * as the read model's `round(order_amount * fx_rate, fx_minor_units)`.
 *
 * @example
 * convertAmount(100, conversionOn(rates, 'GBP', 'USD', '2023-12-29T12:00:00Z')); // '127.15'
 */
export function convertAmount(amount: number | string, c: Pick<Conversion, 'rate' | 'minorUnits'>): string {
  const stored = roundDecimal(parseDecimal(String(amount)), 4);
  return formatDecimal(roundDecimal(multiplyDecimal(stored, parseDecimal(c.rate)), c.minorUnits));
}
