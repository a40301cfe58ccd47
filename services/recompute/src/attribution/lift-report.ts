import { localMonths, type Period as LocalPeriod } from '@holdfast/local-time';
import { DEFAULT_SETTLEMENT_DAYS, liftStatistics, type LiftOptions } from '@holdfast/analytics';

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
  /** One-sided p-value of the billing test (lift > 0). */
  readonly pValueGreater: number | null;
  /** The billing test (`permutation`). */
  readonly test: string;
  readonly significant: boolean;
  /** The one-sided test at 2.5% says lift > 0 (what `decideBilling` bills on). */
  readonly significantlyPositive: boolean;
  readonly incrementalRevenue: number | null;
  /** Minimum detectable effect (revenue per customer): one-sided 2.5% test, 80% power, these groups. */
  readonly mde: number | null;
}

const finite = (x: number): number | null => (Number.isFinite(x) ? x : null);

/**
 * Lift of one campaign type in one period from per-customer net revenue of the treated customers
 * (intent to treat: every eligible non-holdout customer selected, whatever happened to the send) and
 * the holdout customers (eligible, held out). `liftStatistics`: a studentised permutation test, and the
 * 95% interval obtained by inverting it, from the same re-splits (docs/analytics.md §8). What is
 * billable is `decideBilling`'s (@holdfast/analytics) from these figures.
 * Statistics that cannot be computed (fewer than two customers in a group) are null.
 */
export function liftFigures(
  treated: readonly number[],
  holdout: readonly number[],
  options?: LiftOptions,
): LiftFigures {
  const s = liftStatistics(treated, holdout, options);
  return {
    treatedCustomers: s.treatedCount,
    holdoutCustomers: s.holdoutCount,
    treatedRevenuePerCustomer: finite(s.treatedMean),
    holdoutRevenuePerCustomer: finite(s.holdoutMean),
    lift: finite(s.lift),
    ciLow: finite(s.confidenceInterval[0]),
    ciHigh: finite(s.confidenceInterval[1]),
    pValue: finite(s.pValue),
    pValueGreater: finite(s.pValueGreater),
    test: s.test,
    significant: s.significant,
    significantlyPositive: s.significantlyPositive,
    incrementalRevenue: finite(s.incrementalRevenue),
    mde: finite(s.minimumDetectableEffect),
  };
}

/** A report period: [start, end). */
export type Period = LocalPeriod;

/**
 * The calendar months a recompute refreshes, in the account's zone (its store_timezone; UTC when it
 * has none): the current month there and the `previous` before it (late refunds and late orders
 * still move them), oldest first, each from local midnight of its first day (`localMonths` of
 * @holdfast/local-time).
 *
 * @example
 * monthPeriods(new Date('2025-03-10T00:00:00Z'), 1);
 * // [{start: 2025-02-01, end: 2025-03-01}, {start: 2025-03-01, end: 2025-04-01}]
 * monthPeriods(new Date('2026-01-01T03:00:00Z'), 0, 'America/New_York');
 * // [{start: 2025-12-01T05:00Z, end: 2026-01-01T05:00Z}]: still December in New York
 */
export function monthPeriods(now: Date, previous = 1, zone = 'UTC'): Period[] {
  return localMonths(now, previous, zone).reverse();
}

export { DEFAULT_SETTLEMENT_DAYS };

/**
 * The periods a recompute refreshes with a settlement period: every month whose end is at most
 * `settlementDays` + one month before now, so a month is recomputed until the first run after it settles.
 *
 * @example
 * settlingPeriods(new Date('2025-06-10T00:00:00Z'), 60).map((p) => p.start.toISOString().slice(0, 7));
 * // (months of the zone given, UTC by default)
 * // ['2025-02', '2025-03', '2025-04', '2025-05', '2025-06']
 */
export function settlingPeriods(
  now: Date,
  settlementDays: number = DEFAULT_SETTLEMENT_DAYS,
  zone = 'UTC',
): Period[] {
  return monthPeriods(now, Math.ceil(settlementDays / 28) + 1, zone);
}
