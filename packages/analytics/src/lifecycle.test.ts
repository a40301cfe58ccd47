import { describe, expect, it } from 'vitest';
import {
  accountMedianGap,
  heuristicCustomer,
  heuristicExpectedPurchases,
  heuristicMedianTimeToNextPurchase,
  heuristicProbabilityAlive,
} from './heuristic.js';
import { OVERDUE_GAPS, churnRisk, lifecycleState } from './lifecycle.js';
import type { CustomerSummary } from './summary.js';

const summary = (frequency: number, recency: number, T: number, totalRevenue = 100): CustomerSummary => ({
  customerId: `c${frequency}-${recency}-${T}`,
  frequency,
  recency,
  T,
  monetaryValue: frequency > 0 ? totalRevenue / (frequency + 1) : 0,
  totalRevenue,
  transactions: frequency + 1,
  firstPurchaseAt: new Date(0),
  lastPurchaseAt: new Date(0),
  meanInterPurchaseTime: frequency > 0 ? recency / frequency : null,
});

describe('lifecycleState', () => {
  const state = (elapsed: number, pAlive = 0.9) => lifecycleState({ pAlive, elapsed, expectedGap: 10 });
  it('follows the silence in expected gaps: 1 and ln 20 ≈ 3.0', () => {
    expect(OVERDUE_GAPS).toBeCloseTo(2.995732, 6);
    expect(state(0)).toBe('Stable');
    expect(state(10)).toBe('Stable'); // exactly one gap: not yet past due
    expect(state(10.0001)).toBe('Slowing');
    expect(state(10 * OVERDUE_GAPS)).toBe('Slowing');
    expect(state(10 * OVERDUE_GAPS + 0.001)).toBe('Overdue');
  });
  it('is Lapsed once past due with P(alive) < ½, never before the purchase is due', () => {
    expect(state(5, 0.2)).toBe('Stable');
    expect(state(10.0001, 0.4999)).toBe('Lapsed');
    expect(state(10.0001, 0.5)).toBe('Slowing');
    expect(state(100, 0.49)).toBe('Lapsed');
    expect(state(100, 0.51)).toBe('Overdue');
  });
  it('churn risk is 1 − P(alive) within [0, 1]', () => {
    expect(churnRisk(0.25)).toBe(0.75);
    expect(churnRisk(1.0000001)).toBe(0);
  });
});

describe('heuristic scorer', () => {
  it("uses the customer's own mean gap with ≥ 2 purchases, else the account median gap", () => {
    const account = [summary(2, 20, 30), summary(1, 30, 40), summary(0, 0, 5), summary(4, 20, 25)];
    const gap = accountMedianGap(account, 1 / 7);
    expect(gap).toBe(10); // gaps 10, 30, 5 → median 10
    expect(heuristicCustomer(account[1] as CustomerSummary, gap)).toEqual({
      gap: 30,
      shape: 1,
      dropout: 1 / 4,
    });
    expect(heuristicCustomer(account[2] as CustomerSummary, gap)).toEqual({
      gap: 10,
      shape: 1,
      dropout: 1 / 3,
    });
    expect(heuristicCustomer(account[3] as CustomerSummary, gap)).toEqual({
      gap: 5,
      shape: 4,
      dropout: 1 / 7,
    });
  });

  it('falls back to the median T without repeat customers, and to the minimum', () => {
    expect(accountMedianGap([summary(0, 0, 8), summary(0, 0, 4), summary(0, 0, 6)], 1)).toBe(6);
    expect(accountMedianGap([summary(0, 0, 0)], 1 / 7)).toBeCloseTo(1 / 7, 12);
    expect(accountMedianGap([], 1)).toBe(1);
  });

  it('P(alive) = 1/(1 + (1 + s/(k·g))^k / (x+2)): hand-checked values', () => {
    const m = heuristicCustomer(summary(4, 20, 25), 10); // g = 5, k = 4, x + 2 = 6
    expect(heuristicProbabilityAlive(m, 0)).toBeCloseTo(6 / 7, 12);
    expect(heuristicProbabilityAlive(m, 5)).toBeCloseTo(1 / (1 + Math.pow(1.25, 4) / 6), 12);
    const single = heuristicCustomer(summary(0, 0, 10), 10); // g = 10, k = 1, prior odds 2
    expect(heuristicProbabilityAlive(single, 10)).toBeCloseTo(0.5, 12); // (1 + 1)/2 = 1
  });

  it('P(alive) falls with the silence; more purchases mean more patience', () => {
    const m = heuristicCustomer(summary(3, 30, 30), 10);
    let previous = 1;
    for (const s of [0, 5, 10, 20, 40, 80]) {
      const p = heuristicProbabilityAlive(m, s);
      expect(p).toBeLessThan(previous);
      previous = p;
    }
    const at2Gaps = (x: number) =>
      heuristicProbabilityAlive(heuristicCustomer(summary(x, 10 * x, 10 * x), 10), 20);
    expect(at2Gaps(1)).toBeLessThan(at2Gaps(3));
    expect(at2Gaps(3)).toBeLessThan(at2Gaps(12));
  });

  it('expected purchases and median next purchase are consistent with P(alive)', () => {
    const m = heuristicCustomer(summary(4, 20, 25), 10);
    const elapsed = 5;
    const pa = heuristicProbabilityAlive(m, elapsed);
    expect(heuristicExpectedPurchases(m, elapsed, 0)).toBe(0);
    // Short horizon: about P(alive) × t / posterior mean gap ((k·g + s)/k).
    expect(heuristicExpectedPurchases(m, elapsed, 0.01) / 0.01).toBeCloseTo((pa * 4) / 25, 3);
    const u = heuristicMedianTimeToNextPurchase(m, elapsed) as number;
    expect(pa * (1 - Math.pow(25 / (25 + u), 4))).toBeCloseTo(0.5, 12);
    expect(heuristicMedianTimeToNextPurchase(m, 1000)).toBeNull();
  });
});
