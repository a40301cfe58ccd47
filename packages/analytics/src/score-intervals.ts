import { groupTriplets } from './pareto-nbd.js';
import { purchaseIntervals } from './intervals.js';
import type { FittedPurchaseModel, IntervalOptions } from './intervals.js';
import type { ScoreColumnsResult } from './score.js';
import type { SummaryColumns } from './summary.js';

/** Per-customer 90% intervals, row i for row i of the scores (see {@link scoreIntervals}). */
export interface IntervalColumns {
  readonly purchasesLow: Float64Array;
  readonly purchasesHigh: Float64Array;
  readonly lifetimeValueLow: Float64Array;
  readonly lifetimeValueHigh: Float64Array;
  /** False when the fit's information matrix was not positive definite (customer uncertainty only). */
  readonly parameterUncertainty: boolean;
}

/**
 * The intervals of a trained scoring result: `purchaseIntervals` once per distinct (x, t_x, T) over
 * the horizon, then per customer. The lifetime value's interval is realised revenue plus the predicted
 * value scaled by low/expected and high/expected purchases: the customer's expected spend and the
 * discounting profile are taken as they are in the point estimate, so the interval carries the
 * uncertainty of the purchases, not of the spend per purchase. Null for the heuristic (no fitted
 * parameters), for an empty account, and when even the customer-only intervals are not finite (a fit
 * at an extreme the predictions overflow at): the scores are then stored without intervals.
 */
export function scoreIntervals(
  result: ScoreColumnsResult,
  summaries: SummaryColumns,
  horizon: number,
  options: IntervalOptions = {},
): IntervalColumns | null {
  const p = result.params;
  const fitted: FittedPurchaseModel | null =
    'bgnbd' in p
      ? { model: 'bgnbd', params: p.bgnbd.params }
      : 'paretoNbd' in p
        ? { model: 'pareto-nbd', params: p.paretoNbd.params }
        : null;
  const n = summaries.frequency.length;
  if (!fitted || n === 0) return null;
  // One reused row (groupTriplets copies what it keeps): no object per customer.
  function* rows(): Generator<{ x: number; tx: number; T: number }> {
    const row = { x: 0, tx: 0, T: 0 };
    for (let i = 0; i < n; i++) {
      row.x = summaries.frequency[i]!;
      row.tx = summaries.recency[i]!;
      row.T = summaries.T[i]!;
      yield row;
    }
  }
  const groups = groupTriplets(rows());
  const distinct = Array.from(groups.weight, (_, i) => ({
    x: groups.x[i]!,
    tx: groups.tx[i]!,
    T: groups.T[i]!,
  }));
  let { intervals, parameterUncertainty } = purchaseIntervals(fitted, groups, distinct, horizon, options);
  const finite = (list: typeof intervals) =>
    list.every((iv) => Number.isFinite(iv.low) && Number.isFinite(iv.high));
  if (!finite(intervals) && parameterUncertainty) {
    // A parameter draw far out on a ridge can make a prediction overflow: keep the customer's own
    // uncertainty only rather than no interval.
    ({ intervals, parameterUncertainty } = purchaseIntervals(fitted, groups, distinct, horizon, {
      ...options,
      parameterUncertainty: false,
    }));
  }
  if (!finite(intervals)) return null;
  const at = new Map(distinct.map((h, i) => [`${h.x}|${h.tx}|${h.T}`, i]));
  const out: IntervalColumns = {
    purchasesLow: new Float64Array(n),
    purchasesHigh: new Float64Array(n),
    lifetimeValueLow: new Float64Array(n),
    lifetimeValueHigh: new Float64Array(n),
    parameterUncertainty,
  };
  const s = result.scores;
  for (let i = 0; i < n; i++) {
    const iv = intervals[at.get(`${summaries.frequency[i]!}|${summaries.recency[i]!}|${summaries.T[i]!}`)!]!;
    const expected = s.expectedPurchases[i]!;
    const perPurchase = expected > 0 ? s.predictedValue[i]! / expected : 0;
    const realised = s.lifetimeValue[i]! - s.predictedValue[i]!;
    out.purchasesLow[i] = iv.low;
    out.purchasesHigh[i] = iv.high;
    out.lifetimeValueLow[i] = realised + perPurchase * iv.low;
    out.lifetimeValueHigh[i] = realised + perPurchase * iv.high;
  }
  return out;
}
