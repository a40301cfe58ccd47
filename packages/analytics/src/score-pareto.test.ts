/** Scoring with Pareto/NBD (`purchaseModel: 'pareto-nbd'`) and its typed fallback to BG/NBD. */
import { describe, expect, it } from 'vitest';
import { paretoNbdConditionalExpectedPurchases, paretoNbdProbabilityAlive } from './pareto-nbd.js';
import { scoreCustomers } from './score.js';
import { summarizeOrders } from './summary.js';
import type { CustomerSummary } from './summary.js';
import { readCdnowOrders } from './testing/cdnow.js';

describe('scoreCustomers with Pareto/NBD', () => {
  it('given CDNOW and purchaseModel pareto-nbd, then Pareto/NBD + Gamma-Gamma score every customer', () => {
    const summaries = summarizeOrders(readCdnowOrders(), { calibrationEnd: '1997-09-30' });
    const result = scoreCustomers(summaries, {
      asOf: '1997-09-30',
      horizon: 39,
      discountRate: 0.1,
      purchaseModel: 'pareto-nbd',
    });
    expect(result.model).toBe('pareto-nbd-gg');
    expect(result.fallbackReason).toBeNull();
    if (!('paretoNbd' in result.params)) throw new Error('not a Pareto/NBD result');
    const params = result.params.paretoNbd.params;
    expect(params.r).toBeCloseTo(0.5533, 3);
    const one = result.scores.find((s) => s.customerId === '1')!;
    const h = { x: 2, tx: summaries.find((s) => s.customerId === '1')!.recency, T: 38.857142857142854 };
    expect(one.pAlive).toBeCloseTo(paretoNbdProbabilityAlive(params, h), 12);
    expect(one.expectedPurchases).toBeCloseTo(paretoNbdConditionalExpectedPurchases(params, h, 39), 12);
    for (const s of result.scores) {
      expect(Number.isFinite(s.lifetimeValue)).toBe(true);
      expect(s.churnRisk).toBeCloseTo(1 - s.pAlive, 12);
    }
  });

  it('given customers who never drop out, when Pareto/NBD is asked for, then it falls back to BG/NBD with its failure', () => {
    const summaries: CustomerSummary[] = Array.from({ length: 200 }, (_, i) => {
      const x = 10 + (i % 5);
      return {
        customerId: String(i),
        frequency: x,
        recency: 50,
        T: 50,
        monetaryValue: 20,
        totalRevenue: 20 * (x + 1),
        transactions: x + 1,
        firstPurchaseAt: new Date('2026-01-01'),
        lastPurchaseAt: new Date('2026-12-17'),
        meanInterPurchaseTime: 50 / x,
      };
    });
    const result = scoreCustomers(summaries, {
      asOf: '2026-12-17',
      horizon: 52,
      discountRate: 0.1,
      purchaseModel: 'pareto-nbd',
    });
    expect(result.fallbackReason).toBe('pareto_nbd_at_bound');
    expect(result.model).not.toBe('pareto-nbd-gg');
  });
});
