import { GroupIndex, type AccountStatistics, type SummaryNumbers } from '@holdfast/analytics';

/**
 * The fit's sufficient statistics, gathered as customers stream past: BG/NBD reads a customer's
 * (x, t_x, T) only and Gamma-Gamma their (x, m_x) only, so each distinct value is kept once with the
 * number of customers who have it. Durations are whole local days, so the (x, t_x, T) groups are
 * bounded by the account's history span (not its size), and the (x, m_x) groups by the distinct
 * repeat-spend means (cents): a 10-million-customer account holds a few hundred thousand groups where
 * a row per customer would be 10 million.
 */
export class AccountGroups {
  /** (x, recency days, T days). */
  private readonly rfm = new GroupIndex(3, 1 << 16);
  /** (x, m_x) of repeat customers with a spend. */
  private readonly spend = new GroupIndex(2, 1 << 16);

  constructor(private readonly unitDays: number) {}

  /** Customers added. */
  get customers(): number {
    return this.rfm.weightTotal;
  }

  /** Distinct (x, t_x, T) and (x, m_x) values held. */
  get groups(): { readonly rfm: number; readonly spend: number } {
    return { rfm: this.rfm.size, spend: this.spend.size };
  }

  /** Adds one customer, durations (recency, T) in whole days. */
  add(days: SummaryNumbers): void {
    this.rfm.add(days.frequency, days.recency, days.T);
    if (days.frequency > 0 && days.monetaryValue > 0) this.spend.add(days.frequency, days.monetaryValue);
  }

  /** The statistics `fitAccount` takes, durations in the fit's time unit. */
  statistics(): AccountStatistics {
    const inUnits = (days: Float64Array) => days.map((d) => d / this.unitDays);
    return {
      rfm: {
        frequency: this.rfm.column(0),
        recency: inUnits(this.rfm.column(1)),
        T: inUnits(this.rfm.column(2)),
        weight: this.rfm.weights(),
        customers: this.customers,
      },
      spend: {
        frequency: this.spend.column(0),
        monetaryValue: this.spend.column(1),
        weight: this.spend.weights(),
      },
    };
  }
}
