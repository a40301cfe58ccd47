/** Days after a period's end during which refunds still change its billable figure (default). */
export const DEFAULT_SETTLEMENT_DAYS = 60;

/** What the billing decision of one campaign type in one month needs. */
export interface BillingFacts {
  /** The one-sided test at 2.5% says lift > 0 (the 95% interval's lower bound is above 0). */
  readonly significantlyPositive: boolean;
  /** Revenue per customer, treated minus holdout (null: not computable). */
  readonly lift: number | null;
  /** Lift times treated customers (null: not computable). */
  readonly incrementalRevenue: number | null;
  /** End of the month reported on (exclusive). */
  readonly periodEnd: Date;
  readonly now: Date;
  /** Days after the month's end during which refunds still move its figure. */
  readonly settlementDays?: number;
}

/** What the performance fee of one campaign type in one month may be computed from. */
export interface BillingDecision {
  /** Incremental revenue when proven positive, else 0 (rounded to 4 decimals). */
  readonly billableRevenue: number;
  /** Provisional until `settlesAt` (month end + settlement days), final (never moves again) after. */
  readonly settlementStatus: 'provisional' | 'final';
  readonly settlesAt: Date;
  /** The billable revenue frozen at settlement (null while provisional). */
  readonly finalBillableRevenue: number | null;
}

/**
 * The billing rule (spec, general rule 6): incremental revenue is billable only when the one-sided
 * test at 2.5% says lift > 0; statistics that cannot be computed bill nothing. A month's figure stays
 * provisional for `settlementDays` after its end (late refunds still move it), then is final.
 *
 * @example
 * decideBilling({ significantlyPositive: true, lift: 5, incrementalRevenue: 300,
 *   periodEnd: new Date('2025-04-01T00:00:00Z'), now: new Date('2025-04-10T00:00:00Z') });
 * // { billableRevenue: 300, settlementStatus: 'provisional', settlesAt: 2025-05-31, finalBillableRevenue: null }
 */
export function decideBilling(f: BillingFacts): BillingDecision {
  const proven =
    f.significantlyPositive && f.lift !== null && f.lift > 0 && f.incrementalRevenue !== null
      ? f.incrementalRevenue
      : 0;
  const billableRevenue = Number.isFinite(proven) ? Math.round(proven * 10_000) / 10_000 : 0;
  const settlesAt = new Date(
    f.periodEnd.getTime() + (f.settlementDays ?? DEFAULT_SETTLEMENT_DAYS) * 86_400_000,
  );
  const final = f.now.getTime() >= settlesAt.getTime();
  return {
    billableRevenue,
    settlementStatus: final ? 'final' : 'provisional',
    settlesAt,
    finalBillableRevenue: final ? billableRevenue : null,
  };
}
