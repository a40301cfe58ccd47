/**
 * Intervals of an account scored in chunks (`IntervalScorer`, what the streamed recompute uses): the
 * same numbers whatever the chunking and order, and none for the heuristic.
 */
import { describe, expect, it } from 'vitest';
import { groupTriplets } from './pareto-nbd.js';
import { simulateParetoNbd } from './pareto-nbd-simulation.js';
import { accountStatistics, fitAccount, scoreWithFit, scoringCache } from './score.js';
import { IntervalScorer } from './score-intervals.js';
import type { SummaryColumns } from './summary.js';

const HORIZON = 52;
const OPTIONS = { asOf: '2026-01-01T00:00:00Z', horizon: HORIZON, discountRate: 0.1 } as const;

/** 800 simulated customers, durations in whole days (as the recompute has them), so histories repeat. */
function account(): SummaryColumns {
  const sim = simulateParetoNbd({
    params: { r: 0.55, alpha: 10.6, s: 0.61, beta: 11.7 },
    customers: 800,
    minT: 26,
    maxT: 39,
    holdout: 1,
    seed: 5,
  });
  const n = sim.length;
  const columns = {
    frequency: new Float64Array(n),
    recency: new Float64Array(n),
    T: new Float64Array(n),
    monetaryValue: new Float64Array(n),
    totalRevenue: new Float64Array(n),
    transactions: new Float64Array(n),
  };
  sim.forEach((h, i) => {
    const T = Math.round(h.T * 7) / 7;
    columns.frequency[i] = h.x;
    columns.recency[i] = h.x > 0 ? Math.min(T, Math.round(h.tx * 7) / 7) : 0;
    columns.T[i] = T;
    columns.monetaryValue[i] = h.x > 0 ? 20 + (i % 7) : 0;
    columns.totalRevenue[i] = 25 * (h.x + 1);
    columns.transactions[i] = h.x + 1;
  });
  return columns;
}

function slice(c: SummaryColumns, from: number, to: number): SummaryColumns {
  return {
    frequency: c.frequency.subarray(from, to),
    recency: c.recency.subarray(from, to),
    T: c.T.subarray(from, to),
    monetaryValue: c.monetaryValue.subarray(from, to),
    totalRevenue: c.totalRevenue.subarray(from, to),
    transactions: c.transactions.subarray(from, to),
  };
}

function groupsOf(c: SummaryColumns) {
  return groupTriplets(Array.from(c.frequency, (x, i) => ({ x, tx: c.recency[i]!, T: c.T[i]! })));
}

describe('IntervalScorer', () => {
  it('given a Pareto/NBD account scored in chunks, when the chunks come in another order, then every customer gets the same interval as scored whole, around the point forecast', () => {
    const columns = account();
    const fit = fitAccount(accountStatistics(columns), { purchaseModel: 'pareto-nbd' });
    expect(fit.model).toBe('pareto-nbd-gg');
    const scores = scoreWithFit(columns, fit, OPTIONS);
    const whole = IntervalScorer.of(fit, groupsOf(columns), HORIZON, { seed: 1 })!.columns(columns, scores);

    const scorer = IntervalScorer.of(fit, groupsOf(columns), HORIZON, { seed: 1 })!;
    const cache = scoringCache();
    const low = new Float64Array(columns.frequency.length);
    const ltvHigh = new Float64Array(columns.frequency.length);
    for (const from of [600, 300, 0]) {
      const chunk = slice(columns, from, from + 300);
      const iv = scorer.columns(chunk, scoreWithFit(chunk, fit, OPTIONS, cache));
      low.set(iv.purchasesLow, from);
      ltvHigh.set(iv.lifetimeValueHigh, from);
    }
    expect(low).toEqual(whole.purchasesLow);
    expect(ltvHigh).toEqual(whole.lifetimeValueHigh);
    expect(whole.parameterUncertainty).toBe(true);
    let inside = 0;
    for (let i = 0; i < columns.frequency.length; i++) {
      expect(whole.purchasesLow[i]).toBeGreaterThanOrEqual(0);
      expect(whole.purchasesHigh[i]).toBeGreaterThanOrEqual(whole.purchasesLow[i]!);
      expect(whole.lifetimeValueLow[i]).toBeGreaterThanOrEqual(columns.totalRevenue[i]! - 1e-9);
      const e = scores.expectedPurchases[i]!;
      if (e >= whole.purchasesLow[i]! && e <= whole.purchasesHigh[i]!) inside++;
    }
    // The point forecast is the mean of what the interval covers: nearly always inside it.
    expect(inside / columns.frequency.length).toBeGreaterThan(0.95);
  }, 60_000); // seconds on an idle machine; generous for a loaded one

  it('given a spend covariance so wide that its draws overflow, when scored, then it says some interval was not finite and its fallback (the customer’s own uncertainty) is finite, with no fallback of its own', () => {
    const columns = account();
    const fitted = fitAccount(accountStatistics(columns), { purchaseModel: 'pareto-nbd' });
    const p = fitted.params as Extract<typeof fitted.params, { paretoNbd: unknown }>;
    const wide = [
      [1e6, 0, 0],
      [0, 1e6, 0],
      [0, 0, 1e6],
    ];
    const fit = { ...fitted, params: { ...p, gammaGamma: { ...p.gammaGamma!, logCovariance: wide } } };
    const scores = scoreWithFit(columns, fit, OPTIONS);

    const scorer = IntervalScorer.of(fit, groupsOf(columns), HORIZON, { seed: 1 })!;
    expect(scorer.parameterDraws).toBe(true);
    expect(scorer.allFinite).toBe(true); // nothing computed yet
    scorer.columns(columns, scores);
    expect(scorer.allFinite).toBe(false);

    const fallback = scorer.fallback()!;
    expect(fallback.parameterDraws).toBe(false);
    const iv = fallback.columns(columns, scores);
    expect(fallback.allFinite).toBe(true);
    expect(fallback.fallback()).toBeNull();
    expect(iv.lifetimeValueHigh.every(Number.isFinite)).toBe(true);
  }, 60_000);

  it('given the heuristic, then no intervals', () => {
    const columns = account();
    const fit = fitAccount(accountStatistics(columns), { minRepeatCustomers: Number.POSITIVE_INFINITY });
    expect(fit.model).toBe('heuristic');
    expect(IntervalScorer.of(fit, groupsOf(columns), HORIZON)).toBeNull();
  });
});
