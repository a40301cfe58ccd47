import type { Bin, MoneyDistribution } from './reports.js';

/** Churn risk is drawn in 20 bins of width 0.05; the last one includes 1. */
export const CHURN_BINS = 20;

/**
 * The churn-risk histogram from per-bucket counts: `counts[i]` customers in bucket i + 1 of
 * `width_bucket(churn_risk, 0, 1, 20)`, bucket 21 (exactly 1) folded into the last bin. Every bin is
 * present, empty ones with 0.
 *
 * @example
 * churnBins(new Map([[1, 5], [21, 2]])); // bins[0].customers = 5, bins[19].customers = 2
 */
export function churnBins(counts: ReadonlyMap<number, number>): Bin[] {
  return Array.from({ length: CHURN_BINS }, (_, i) => ({
    low: round(i / CHURN_BINS),
    high: round((i + 1) / CHURN_BINS),
    customers:
      (counts.get(i + 1) ?? 0) +
      (i === 0 ? (counts.get(0) ?? 0) : 0) +
      (i === CHURN_BINS - 1 ? (counts.get(CHURN_BINS + 1) ?? 0) : 0),
  }));
}

/**
 * The edges of the money bins: 0, then 1, 2, 5, 10, 20, 50, … up to 10^9. Spend per customer is
 * heavy-tailed (a few customers spend a hundred times the median), so equal-width bins would put nearly
 * everyone in the first one; 1-2-5 steps are a log scale with round labels.
 */
export const MONEY_EDGES: readonly number[] = [
  0,
  ...Array.from({ length: 9 }, (_, k) => [1, 2, 5].map((m) => m * 10 ** k)).flat(),
  1e9,
];

/**
 * A money distribution from `width_bucket(amount, MONEY_EDGES)` counts and sums: bucket b (1 ≤ b <
 * edges) is [edges[b−1], edges[b]), bucket = edges.length is [10^9, ∞), bucket 0 (below 0, which
 * realised revenue and lifetime value never are) joins the first bin. Bins run from 0 to the highest
 * non-empty one, empty ones in between kept (a gap is information).
 *
 * @example
 * moneyDistribution([{ bucket: 3, customers: 2, total: 7 }]); // bins [0,1) [1,2) [2,5): 0, 0, 2
 */
export function moneyDistribution(
  rows: readonly { bucket: number; customers: number; total: number }[],
): MoneyDistribution {
  const counts = new Map<number, number>();
  let customers = 0;
  let total = 0;
  for (const r of rows) {
    const b = Math.max(1, r.bucket);
    counts.set(b, (counts.get(b) ?? 0) + r.customers);
    customers += r.customers;
    total += r.total;
  }
  const last = Math.max(0, ...[...counts.entries()].filter(([, n]) => n > 0).map(([b]) => b));
  const bins: Bin[] = [];
  for (let b = 1; b <= last; b++)
    bins.push({ low: MONEY_EDGES[b - 1]!, high: MONEY_EDGES[b] ?? null, customers: counts.get(b) ?? 0 });
  return { customers, total: round(total, 4), bins };
}

const round = (v: number, digits = 6): number => Number(v.toFixed(digits));
