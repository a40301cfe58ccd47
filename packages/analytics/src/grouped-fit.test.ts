import { describe, expect, it } from 'vitest';
import { bgnbdLogLikelihood, fitBgNbd } from './bgnbd.js';
import { fitGammaGammaColumns } from './gamma-gamma.js';
import { accountMedianGapOfColumns, accountMedianGapOfGroups } from './heuristic.js';
import { mulberry32 } from './prng.js';
import type { RfmGroups } from './rfm-groups.js';
import { groupRfm } from './rfm-groups.js';
import { accountStatistics, fitAccount, scoreSummaryColumns, scoreWithFit, scoringCache } from './score.js';
import type { ScoreOptions } from './score.js';
import type { SummaryColumns } from './summary.js';

/** Gamma(shape, 1) draws (Marsaglia–Tsang; shape < 1 through the boost u^(1/shape)). */
function gammaDraw(rnd: () => number, shape: number): number {
  if (shape < 1) return gammaDraw(rnd, shape + 1) * Math.pow(1 - rnd(), 1 / shape);
  const d = shape - 1 / 3;
  const c = 1 / Math.sqrt(9 * d);
  for (;;) {
    const z = Math.sqrt(-2 * Math.log(1 - rnd())) * Math.cos(2 * Math.PI * rnd());
    const v = Math.pow(1 + c * z, 3);
    if (v > 0 && Math.log(1 - rnd()) < 0.5 * z * z + d - d * v + d * Math.log(v)) return d * v;
  }
}

/**
 * Customers drawn from BG/NBD at CDNOW's parameters (weeks), with purchases bucketed to whole days and
 * spends in quarters, so that many customers share their (x, t_x, T) and (x, m_x).
 */
function customers(n: number, seed: number): SummaryColumns {
  const rnd = mulberry32(seed);
  const c = {
    frequency: new Float64Array(n),
    recency: new Float64Array(n),
    T: new Float64Array(n),
    monetaryValue: new Float64Array(n),
    totalRevenue: new Float64Array(n),
    transactions: new Float64Array(n),
  };
  for (let i = 0; i < n; i++) {
    const Tdays = 30 + Math.floor(rnd() * 500);
    const rate = gammaDraw(rnd, 0.243) / 4.414 / 7; // per day
    const u = gammaDraw(rnd, 0.793);
    const dropout = u / (u + gammaDraw(rnd, 2.426));
    let day = 0;
    let last = 0;
    let x = 0;
    for (;;) {
      day += -Math.log(1 - rnd()) / Math.max(rate, 1e-9);
      if (day > Tdays) break;
      if (Math.floor(day) !== last) {
        last = Math.floor(day);
        x++;
      }
      if (rnd() < dropout) break;
    }
    const spend = x === 0 ? 0 : Math.round((5 + rnd() * 10) * 4) / 4;
    c.frequency[i] = x;
    c.recency[i] = last / 7;
    c.T[i] = Tdays / 7;
    c.monetaryValue[i] = spend;
    c.totalRevenue[i] = spend * (x + 1);
    c.transactions[i] = x + 1;
  }
  return c;
}

/** One weighted row per customer: the data as if nothing were grouped. */
function ungrouped(c: SummaryColumns): RfmGroups {
  const n = c.frequency.length;
  return {
    frequency: c.frequency,
    recency: c.recency,
    T: c.T,
    weight: new Float64Array(n).fill(1),
    customers: n,
  };
}

/** The spend rows grouped by (x, m_x), weights counting the customers, in order of first appearance. */
function spendGroups(c: SummaryColumns) {
  const at = new Map<string, number>();
  const x: number[] = [];
  const m: number[] = [];
  const w: number[] = [];
  for (let i = 0; i < c.frequency.length; i++) {
    const key = `${c.frequency[i]}|${c.monetaryValue[i]}`;
    const k = at.get(key);
    if (k !== undefined) w[k]!++;
    else {
      at.set(key, x.length);
      x.push(c.frequency[i]!);
      m.push(c.monetaryValue[i]!);
      w.push(1);
    }
  }
  return {
    frequency: Float64Array.from(x),
    monetaryValue: Float64Array.from(m),
    weight: Float64Array.from(w),
  };
}

const close = (a: number, b: number) =>
  expect(Math.abs(a - b)).toBeLessThanOrEqual(1e-6 * Math.max(1, Math.abs(b)));

describe('fits on grouped customers', () => {
  const c = customers(4_000, 7);

  it('given customers grouped by (x, t_x, T) with weights, when BG/NBD is fitted, then the fit is the ungrouped one', () => {
    const grouped = groupRfm(
      Array.from(c.frequency, (_, i) => ({ frequency: c.frequency[i]!, recency: c.recency[i]!, T: c.T[i]! })),
    );
    expect(grouped.weight.length).toBeLessThan(0.6 * c.frequency.length);
    // The objective is the same function (to rounding: the sums run in another order)…
    for (const params of [
      { r: 0.3, alpha: 4, a: 0.8, b: 2.5 },
      { r: 2, alpha: 40, a: 3, b: 0.5 },
    ]) {
      const g = bgnbdLogLikelihood(params, grouped);
      expect(Math.abs(g - bgnbdLogLikelihood(params, ungrouped(c)))).toBeLessThan(1e-10 * Math.abs(g));
    }
    // …so the fits agree to the optimiser's tolerance (the 1e-4 the CDNOW validation asks for).
    const a = fitBgNbd(grouped);
    const b = fitBgNbd(ungrouped(c));
    expect(a.customers).toBe(b.customers);
    expect(a.converged && b.converged).toBe(true);
    close(a.logLikelihood, b.logLikelihood);
    for (const k of ['r', 'alpha', 'a', 'b'] as const) {
      expect(Math.abs(a.params[k] - b.params[k])).toBeLessThan(1e-4 * b.params[k]);
    }
  });

  it('given repeat buyers grouped by (x, m_x) with weights, when Gamma-Gamma is fitted, then the fit is the ungrouped one', () => {
    const g = spendGroups(c);
    expect(g.weight.length).toBeLessThan(c.frequency.length / 10);
    const a = fitGammaGammaColumns(g.frequency, g.monetaryValue, { weight: g.weight });
    const b = fitGammaGammaColumns(c.frequency, c.monetaryValue);
    expect(a.customers).toBe(b.customers);
    close(a.logLikelihood, b.logLikelihood);
    for (const k of ['p', 'q', 'gamma'] as const) close(a.params[k], b.params[k]);
  });

  it('given weights of 1, when Gamma-Gamma is fitted, then it is the unweighted fit to the bit', () => {
    const ones = new Float64Array(c.frequency.length).fill(1);
    expect(fitGammaGammaColumns(c.frequency, c.monetaryValue, { weight: ones })).toEqual(
      fitGammaGammaColumns(c.frequency, c.monetaryValue),
    );
  });

  it('given a weight list of another length, then Gamma-Gamma refuses it', () => {
    expect(() => fitGammaGammaColumns([1, 2], [3, 4], { weight: [1] })).toThrow(RangeError);
  });

  it('given grouped statistics, when the account is fitted and scored in chunks, then model and scores are those of scoring it whole', () => {
    const options: ScoreOptions = { asOf: '2026-11-22T00:00:00Z', horizon: 52, discountRate: 0.1 };
    const whole = scoreSummaryColumns(c, options);
    const fit = fitAccount({ rfm: accountStatistics(c).rfm, spend: spendGroups(c) }, options);
    expect(fit.model).toBe('bgnbd-gg');
    expect(fit.repeatCustomers).toBe(whole.repeatCustomers);
    const cache = scoringCache();
    const half = c.frequency.length / 2;
    const part = (from: number, to: number): SummaryColumns => ({
      frequency: c.frequency.subarray(from, to),
      recency: c.recency.subarray(from, to),
      T: c.T.subarray(from, to),
      monetaryValue: c.monetaryValue.subarray(from, to),
      totalRevenue: c.totalRevenue.subarray(from, to),
      transactions: c.transactions.subarray(from, to),
    });
    const first = scoreWithFit(part(0, half), fit, options, cache);
    const second = scoreWithFit(part(half, 2 * half), fit, options, cache);
    for (let i = 0; i < 2 * half; i += 97) {
      const s = i < half ? first : second;
      const j = i < half ? i : i - half;
      close(s.pAlive[j]!, whole.scores.pAlive[i]!);
      close(s.expectedPurchases[j]!, whole.scores.expectedPurchases[i]!);
      close(s.predictedValue[j]!, whole.scores.predictedValue[i]!);
      expect(s.state[j]).toBe(whole.scores.state[i]);
    }
  });
});

describe('accountMedianGapOfGroups', () => {
  it('given customers grouped or not, then the median gap is the same, for odd and even counts', () => {
    for (const n of [999, 1000]) {
      const c = customers(n, n);
      const groups = accountStatistics(c).rfm;
      expect(accountMedianGapOfGroups(groups, 1 / 7)).toBe(accountMedianGapOfColumns(c, 1 / 7));
    }
  });

  it('given no repeat customer, then the median T stands in, as ungrouped', () => {
    const c = customers(50, 3);
    c.frequency.fill(0);
    c.recency.fill(0);
    expect(accountMedianGapOfGroups(accountStatistics(c).rfm, 1 / 7)).toBe(
      accountMedianGapOfColumns(c, 1 / 7),
    );
  });
});
