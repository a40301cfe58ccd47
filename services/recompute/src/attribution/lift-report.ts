import { liftStatistics, type LiftOptions } from '@holdfast/analytics';

/** The statistical columns of one analytics.lift_reports row (money in the account's currency). */
export interface LiftFigures {
  readonly treatedCustomers: number;
  readonly holdoutCustomers: number;
  readonly treatedRevenuePerCustomer: number | null;
  readonly holdoutRevenuePerCustomer: number | null;
  readonly lift: number | null;
  readonly ciLow: number | null;
  readonly ciHigh: number | null;
  readonly pValue: number | null;
  readonly significant: boolean;
  readonly incrementalRevenue: number | null;
  /** What the performance fee may be computed from: incremental revenue when significantly positive, else 0. */
  readonly billableRevenue: number;
  /** Minimum detectable effect (revenue per customer) at α = 0.05 and 80% power for these groups. */
  readonly mde: number | null;
}

const finite = (x: number): number | null => (Number.isFinite(x) ? x : null);

/**
 * Lift of one campaign type in one period from per-customer net revenue of the treated customers
 * (eligible and sent) and the holdout customers (eligible, held out). Welch's t (`liftStatistics`:
 * unequal variances, very unequal group sizes). Billing rule (spec, general rule 6): only statistically
 * significant incremental revenue is billable, and only when the lift is positive — a significant
 * loss bills nothing. Statistics that cannot be computed (fewer than two customers in a group) are
 * null, and then nothing is billable.
 */
export function liftFigures(
  treated: readonly number[],
  holdout: readonly number[],
  options?: LiftOptions,
): LiftFigures {
  const s = liftStatistics(treated, holdout, options);
  const billable = s.significant && s.lift > 0 ? s.incrementalRevenue : 0;
  return {
    treatedCustomers: s.treatedCount,
    holdoutCustomers: s.holdoutCount,
    treatedRevenuePerCustomer: finite(s.treatedMean),
    holdoutRevenuePerCustomer: finite(s.holdoutMean),
    lift: finite(s.lift),
    ciLow: finite(s.confidenceInterval[0]),
    ciHigh: finite(s.confidenceInterval[1]),
    pValue: finite(s.pValue),
    significant: s.significant,
    incrementalRevenue: finite(s.incrementalRevenue),
    billableRevenue: Math.round(billable * 10_000) / 10_000,
    mde: finite(s.minimumDetectableEffect),
  };
}

/** A report period: [start, end). */
export interface Period {
  readonly start: Date;
  readonly end: Date;
}

/**
 * The calendar months (UTC) a recompute refreshes: the current month and the `previous` before it
 * (late refunds and late orders still move them).
 *
 * @example
 * monthPeriods(new Date('2025-03-10T00:00:00Z'), 1);
 * // [{start: 2025-02-01, end: 2025-03-01}, {start: 2025-03-01, end: 2025-04-01}]
 */
export function monthPeriods(now: Date, previous = 1): Period[] {
  const y = now.getUTCFullYear();
  const m = now.getUTCMonth();
  const periods: Period[] = [];
  for (let k = previous; k >= 0; k--) {
    periods.push({ start: new Date(Date.UTC(y, m - k, 1)), end: new Date(Date.UTC(y, m - k + 1, 1)) });
  }
  return periods;
}
