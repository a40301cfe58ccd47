import { describe, expect, it } from 'vitest';
import {
  accountMedianGap,
  heuristicCustomer,
  heuristicMedianTimeToNextPurchase,
  heuristicProbabilityAlive,
} from './heuristic.js';
import { scoreCustomers } from './score.js';
import { summarizeOrders } from './summary.js';
import type { OrderInput } from './summary.js';
import { addUnits } from './time.js';

/** A deterministic synthetic account: `repeaters` customers with 2–5 purchase days, `singles` with one. */
function account(repeaters: number, singles: number): OrderInput[] {
  const orders: OrderInput[] = [];
  const day = (d: number) => new Date(Date.UTC(2024, 0, 1) + d * 86_400_000).toISOString();
  for (let i = 0; i < repeaters; i++) {
    const start = (i * 7) % 120;
    const gap = 10 + ((i * 13) % 40);
    const purchases = 2 + (i % 4);
    for (let k = 0; k < purchases; k++)
      orders.push({ customerId: `r${i}`, orderDate: day(start + k * gap), amount: 20 + (i % 7) * 5 + k });
  }
  for (let i = 0; i < singles; i++)
    orders.push({ customerId: `s${i}`, orderDate: day((i * 11) % 300), amount: 30 });
  return orders;
}

const asOf = '2024-12-31';
const options = { asOf, horizon: 52, discountRate: 0.1 };

describe('scoreCustomers', () => {
  it('uses the heuristic below the training threshold, with its documented formulas', () => {
    const summaries = summarizeOrders(account(20, 30), { calibrationEnd: asOf });
    const result = scoreCustomers(summaries, options);
    expect(result.model).toBe('heuristic');
    expect(result.repeatCustomers).toBe(20);
    expect(result.fallbackReason).toBeNull();
    const gap = accountMedianGap(summaries, 1 / 7);
    expect(result.params).toEqual({ accountMedianGap: gap });
    expect(result.scores).toHaveLength(50);
    summaries.forEach((s, i) => {
      const score = result.scores[i];
      const model = heuristicCustomer(s, gap);
      const elapsed = s.T - s.recency;
      expect(score?.customerId).toBe(s.customerId);
      expect(score?.pAlive).toBeCloseTo(heuristicProbabilityAlive(model, elapsed), 12);
      expect(score?.churnRisk).toBeCloseTo(1 - (score?.pAlive ?? NaN), 12);
      expect(score?.expectedGap).toBe(model.gap);
      expect(score?.expectedSpend).toBeCloseTo(s.totalRevenue / s.transactions, 12);
      expect(score?.lifetimeValue).toBeCloseTo(s.totalRevenue + (score?.predictedValue ?? NaN), 9);
      const u = heuristicMedianTimeToNextPurchase(model, elapsed);
      expect(score?.predictedNextPurchaseAt).toEqual(
        u === null || u > options.horizon ? null : addUnits(new Date(asOf), u, 'weeks'),
      );
      if (score?.state === 'Lapsed') expect(score.pAlive).toBeLessThan(0.5);
      if (score?.state === 'Stable') expect(elapsed).toBeLessThanOrEqual(model.gap);
    });
  });

  it('trains BG/NBD + Gamma-Gamma at 100 repeat customers (the default threshold)', () => {
    expect(scoreCustomers(summarizeOrders(account(99, 300), { calibrationEnd: asOf }), options).model).toBe(
      'heuristic',
    );
    const result = scoreCustomers(summarizeOrders(account(100, 300), { calibrationEnd: asOf }), options);
    expect(result.model).toBe('bgnbd-gg');
    expect(result.repeatCustomers).toBe(100);
    if (!('bgnbd' in result.params)) throw new Error('expected trained parameters');
    expect(result.params.bgnbd.converged).toBe(true);
    for (const s of result.scores) {
      expect(s.pAlive).toBeGreaterThan(0);
      expect(s.pAlive).toBeLessThanOrEqual(1);
      expect(s.expectedPurchases).toBeGreaterThanOrEqual(0);
      expect(s.predictedValue).toBeGreaterThanOrEqual(0);
      expect(['Stable', 'Slowing', 'Overdue', 'Lapsed']).toContain(s.state);
      if (s.predictedNextPurchaseAt) {
        const weeksAhead = (s.predictedNextPurchaseAt.getTime() - Date.parse(asOf)) / (7 * 86_400_000);
        expect(weeksAhead).toBeGreaterThan(0);
        expect(weeksAhead).toBeLessThanOrEqual(options.horizon + 1e-9);
      }
    }
  });

  it('honours a custom threshold and scores an empty account', () => {
    const summaries = summarizeOrders(account(100, 300), { calibrationEnd: asOf });
    expect(scoreCustomers(summaries, { ...options, minRepeatCustomers: 101 }).model).toBe('heuristic');
    expect(scoreCustomers([], options)).toMatchObject({ model: 'heuristic', scores: [], repeatCustomers: 0 });
  });

  it('works in days', () => {
    const summaries = summarizeOrders(account(20, 5), { calibrationEnd: asOf, timeUnit: 'days' });
    const result = scoreCustomers(summaries, { ...options, horizon: 365, timeUnit: 'days' });
    expect(result.params).toEqual({ accountMedianGap: accountMedianGap(summaries, 1) });
    const withDate = result.scores.find((s) => s.predictedNextPurchaseAt !== null);
    expect(withDate).toBeDefined();
  });
});
