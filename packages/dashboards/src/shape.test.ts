import { describe, expect, it } from 'vitest';
import { churnBins, MONEY_EDGES, moneyDistribution } from './bins.js';
import { cohortsFrom, funnelRows, lifecyclePoints, modelFitFrom, monthIndex, monthLabel } from './shape.js';

describe('churnBins', () => {
  it('given counts per width_bucket, when binned, then 20 bins of 0.05 and a risk of exactly 1 in the last', () => {
    const bins = churnBins(
      new Map([
        [1, 5],
        [20, 2],
        [21, 3],
      ]),
    );
    expect(bins).toHaveLength(20);
    expect(bins[0]).toEqual({ low: 0, high: 0.05, customers: 5 });
    expect(bins[19]).toEqual({ low: 0.95, high: 1, customers: 5 });
    expect(bins.reduce((n, b) => n + b.customers, 0)).toBe(10);
  });
});

describe('moneyDistribution', () => {
  it('given the edges, then they run 0, 1, 2, 5, 10 … 10^9 and increase', () => {
    expect(MONEY_EDGES.slice(0, 5)).toEqual([0, 1, 2, 5, 10]);
    expect(MONEY_EDGES.at(-1)).toBe(1e9);
    expect(MONEY_EDGES.every((e, i) => i === 0 || e > MONEY_EDGES[i - 1]!)).toBe(true);
  });
  it('given buckets, when distributed, then bins up to the last non-empty one, gaps kept, totals summed', () => {
    const d = moneyDistribution([
      { bucket: 1, customers: 4, total: 1.5 },
      { bucket: 4, customers: 2, total: 13 },
    ]);
    expect(d).toEqual({
      customers: 6,
      total: 14.5,
      bins: [
        { low: 0, high: 1, customers: 4 },
        { low: 1, high: 2, customers: 0 },
        { low: 2, high: 5, customers: 0 },
        { low: 5, high: 10, customers: 2 },
      ],
    });
  });
  it('given an amount of 10^9 or more, when distributed, then its bin has no upper bound', () => {
    const d = moneyDistribution([{ bucket: MONEY_EDGES.length, customers: 1, total: 2e9 }]);
    expect(d.bins.at(-1)).toEqual({ low: 1e9, high: null, customers: 1 });
  });
  it('given nothing, when distributed, then no bins', () => {
    expect(moneyDistribution([])).toEqual({ customers: 0, total: 0, bins: [] });
  });
});

describe('lifecyclePoints', () => {
  it('given rows of two recomputes out of order, when shaped, then oldest first, every state, totals', () => {
    const points = lifecyclePoints([
      { as_of: new Date('2026-11-02T02:00:00Z'), lifecycle_state: 'Lapsed', customers: 2 },
      { as_of: new Date('2026-11-01T02:00:00Z'), lifecycle_state: 'Stable', customers: 5 },
      { as_of: new Date('2026-11-02T02:00:00Z'), lifecycle_state: 'Stable', customers: 4 },
    ]);
    expect(points).toEqual([
      {
        as_of: '2026-11-01T02:00:00.000Z',
        customers: { Stable: 5, Slowing: 0, Overdue: 0, Lapsed: 0 },
        total: 5,
      },
      {
        as_of: '2026-11-02T02:00:00.000Z',
        customers: { Stable: 4, Slowing: 0, Overdue: 0, Lapsed: 2 },
        total: 6,
      },
    ]);
  });
});

describe('cohortsFrom', () => {
  const nov = monthIndex(new Date('2026-11-15T00:00:00Z'));
  it('given month indexes, when labelled, then YYYY-MM in UTC', () => {
    expect(monthLabel(nov)).toBe('2026-11');
    expect(monthLabel(monthIndex(new Date('2027-01-01T00:00:00Z')))).toBe('2027-01');
  });
  it('given a cohort with a silent month, when shaped, then the silent month is 0 and months not lived are absent', () => {
    const cohorts = cohortsFrom(
      [
        { cohort: nov - 3, k: 0, customers: 10 },
        { cohort: nov - 3, k: 2, customers: 3 },
        { cohort: nov, k: 0, customers: 7 },
      ],
      nov,
    );
    expect(cohorts).toEqual([
      { cohort: '2026-08', customers: 10, active: [10, 0, 3, 0] },
      { cohort: '2026-11', customers: 7, active: [7] },
    ]);
  });
});

describe('funnelRows', () => {
  it('given decisions by status and attributions, when shaped, then each stage counts its statuses', () => {
    const rows = funnelRows(
      [
        { campaign_type: 'win_back', status: 'sent', decisions: 80 },
        { campaign_type: 'win_back', status: 'possibly_sent', decisions: 2 },
        { campaign_type: 'win_back', status: 'failed', decisions: 8 },
        { campaign_type: 'win_back', status: 'held_out', decisions: 5 },
        { campaign_type: 'win_back', status: 'no_consent', decisions: 30 },
        { campaign_type: 'win_back', status: 'capped', decisions: 4 },
      ],
      [
        { campaign_type: 'win_back', orders: 9, revenue: 450.25 },
        { campaign_type: 'vip', orders: 1, revenue: 10 },
      ],
    );
    expect(rows).toEqual([
      {
        campaign_type: 'vip',
        decided: 0,
        held_out: 0,
        not_sent: 0,
        treated: 0,
        sent: 0,
        failed: 0,
        attributed_orders: 1,
        attributed_revenue: 10,
      },
      {
        campaign_type: 'win_back',
        decided: 129,
        held_out: 5,
        not_sent: 34,
        treated: 90,
        sent: 82,
        failed: 8,
        attributed_orders: 9,
        attributed_revenue: 450.25,
      },
    ]);
  });
});

describe('modelFitFrom', () => {
  const base = {
    as_of: new Date('2026-11-20T02:00:00Z'),
    converged: true,
    log_likelihood: -9582.4,
    customers: 2357,
    repeat_customers: 1000,
  };
  it('given a trained fit, when shaped, then the BG/NBD and Gamma-Gamma parameters are picked out', () => {
    const fit = modelFitFrom({
      ...base,
      model: 'bgnbd-gg',
      params: {
        time_unit: 'weeks',
        bgnbd: { r: 0.24, alpha: 4.41, a: 0.79, b: 2.43, log_likelihood: -9582.4, iterations: 40 },
        gamma_gamma: { p: 6.25, q: 3.74, gamma: 15.44, log_likelihood: -1, iterations: 9, customers: 946 },
      },
    });
    expect(fit.bgnbd).toEqual({ r: 0.24, alpha: 4.41, a: 0.79, b: 2.43 });
    expect(fit.gamma_gamma).toEqual({ p: 6.25, q: 3.74, gamma: 15.44 });
    expect(fit.fallback_reason).toBeNull();
    expect(fit.as_of).toBe('2026-11-20T02:00:00.000Z');
  });
  it('given a heuristic fallback, when shaped, then no parameters and the reason', () => {
    const fit = modelFitFrom({
      ...base,
      model: 'heuristic',
      converged: false,
      log_likelihood: null,
      params: { fallback_reason: 'bgnbd_not_converged', gamma_gamma: null },
    });
    expect(fit).toMatchObject({ bgnbd: null, gamma_gamma: null, fallback_reason: 'bgnbd_not_converged' });
  });
});
