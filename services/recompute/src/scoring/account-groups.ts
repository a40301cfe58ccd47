import type { AccountStatistics, SummaryNumbers } from '@holdfast/analytics';

/**
 * The fit's sufficient statistics, gathered as customers stream past: BG/NBD reads a customer's
 * (x, t_x, T) only and Gamma-Gamma their (x, m_x) only, so each distinct value is kept once with the
 * number of customers who have it. Durations are whole local days, so the (x, t_x, T) groups are
 * bounded by the account's history span (not its size), and the (x, m_x) groups by the distinct
 * repeat-spend means (cents): a 10-million-customer account holds a few hundred thousand groups where
 * a row per customer would be 10 million.
 */
export class AccountGroups {
  private readonly rfmAt = new Map<number | string, number>();
  private readonly x: number[] = [];
  private readonly tx: number[] = [];
  private readonly T: number[] = [];
  private readonly w: number[] = [];
  private readonly spendAt = new Map<string, number>();
  private readonly sx: number[] = [];
  private readonly sm: number[] = [];
  private readonly sw: number[] = [];
  private count = 0;

  constructor(private readonly unitDays: number) {}

  /** Customers added. */
  get customers(): number {
    return this.count;
  }

  /** Distinct (x, t_x, T) and (x, m_x) values held. */
  get groups(): { readonly rfm: number; readonly spend: number } {
    return { rfm: this.x.length, spend: this.sx.length };
  }

  /** Adds one customer, durations (recency, T) in whole days. */
  add(days: SummaryNumbers): void {
    this.count++;
    // A number key (no string per customer) while the days fit 16 bits (179 years); else a string.
    const key =
      days.T < 65_536
        ? (days.frequency * 65_536 + days.recency) * 65_536 + days.T
        : `${days.frequency}|${days.recency}|${days.T}`;
    const at = this.rfmAt.get(key);
    if (at !== undefined) this.w[at]!++;
    else {
      this.rfmAt.set(key, this.x.length);
      this.x.push(days.frequency);
      this.tx.push(days.recency / this.unitDays);
      this.T.push(days.T / this.unitDays);
      this.w.push(1);
    }
    if (days.frequency > 0 && days.monetaryValue > 0) {
      const spendKey = `${days.frequency}|${days.monetaryValue}`;
      const s = this.spendAt.get(spendKey);
      if (s !== undefined) this.sw[s]!++;
      else {
        this.spendAt.set(spendKey, this.sx.length);
        this.sx.push(days.frequency);
        this.sm.push(days.monetaryValue);
        this.sw.push(1);
      }
    }
  }

  /** The statistics `fitAccount` takes. */
  statistics(): AccountStatistics {
    return {
      rfm: {
        frequency: Float64Array.from(this.x),
        recency: Float64Array.from(this.tx),
        T: Float64Array.from(this.T),
        weight: Float64Array.from(this.w),
        customers: this.count,
      },
      spend: {
        frequency: Float64Array.from(this.sx),
        monetaryValue: Float64Array.from(this.sm),
        weight: Float64Array.from(this.sw),
      },
    };
  }
}
