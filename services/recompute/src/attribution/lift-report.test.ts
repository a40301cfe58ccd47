import { describe, expect, it } from 'vitest';
import { HOLDOUT_SHARE, isHoldout } from '@holdfast/analytics';
import { liftFigures, monthPeriods } from './lift-report.js';
import { mulberry32 } from '../campaigns/test-support/random.js';

// Revenue per customer over a period: 70% buy nothing, buyers spend exp(N(3.5, 1)) — skewed like real
// order values. Treatment multiplies every buyer's spend by (1 + effect), so the true lift in revenue
// per customer is effect × 0.3 × e^(3.5 + 1/2).
const BUY = 0.3;
const MEAN = BUY * Math.exp(3.5 + 0.5);

function revenue(rand: () => number, effect: number): number {
  if (rand() >= BUY) return 0;
  const z = Math.sqrt(-2 * Math.log(1 - rand())) * Math.cos(2 * Math.PI * rand());
  return Math.exp(3.5 + z) * (1 + effect);
}

// The holdout is the service's own: isHoldout over 40,000 customer ids of each of 5 accounts, so about
// 2,000 holdout customers per report. At ~1,000 the Welch interval covers only ~93–94% for revenue this
// skewed (docs/analytics.md, "Lift statistics" and "Lift reports and billing").
const SPLITS = Array.from({ length: 5 }, (_, a) =>
  Array.from({ length: 40_000 }, (_, i) => isHoldout(`sim-account-${a}`, `customer-${i}`)),
);

/** 1,000 simulated lift reports; every experiment draws fresh revenue for a fixed hash holdout. */
function simulate(effect: number, seed: number) {
  const rand = mulberry32(seed);
  const reports = [];
  for (let e = 0; e < 1000; e++) {
    const treated: number[] = [];
    const holdout: number[] = [];
    for (const held of SPLITS[e % SPLITS.length]!) {
      if (held) holdout.push(revenue(rand, 0));
      else treated.push(revenue(rand, effect));
    }
    reports.push(liftFigures(treated, holdout));
  }
  return { reports, holdoutShare: SPLITS.flat().filter(Boolean).length / 200_000 };
}

describe('lift report by simulation (1,000 experiments, the service’s hash holdout)', () => {
  it('the 95% interval covers a known true lift 93–97% of the time; billing follows significance', () => {
    const trueLift = 0.1 * MEAN;
    const { reports, holdoutShare } = simulate(0.1, 20251123);
    expect(Math.abs(holdoutShare - HOLDOUT_SHARE)).toBeLessThan(0.005);
    const covered =
      reports.filter((r) => r.ciLow! <= trueLift && trueLift <= r.ciHigh!).length / reports.length;
    expect(covered).toBeGreaterThanOrEqual(0.93);
    expect(covered).toBeLessThanOrEqual(0.97);
    for (const r of reports) {
      expect(r.billableRevenue).toBeCloseTo(r.significant && r.lift! > 0 ? r.incrementalRevenue! : 0, 3);
      expect(r.mde).toBeGreaterThan(0);
    }
  }, 120_000);

  it('under no lift, 3–7% of reports are significant and at most 5% bill anything', () => {
    const { reports } = simulate(0, 424242);
    const significant = reports.filter((r) => r.significant).length / reports.length;
    const billed = reports.filter((r) => r.billableRevenue > 0).length / reports.length;
    expect(significant).toBeGreaterThanOrEqual(0.03);
    expect(significant).toBeLessThanOrEqual(0.07);
    expect(billed).toBeLessThanOrEqual(0.05);
  }, 120_000);
});

describe('liftFigures', () => {
  it('bills only significant positive incremental revenue', () => {
    const up = liftFigures([10, 12, 11, 13, 12, 11], [1, 2, 1, 2, 1, 2]);
    expect(up.significant).toBe(true);
    expect(up.billableRevenue).toBeCloseTo(up.incrementalRevenue!, 4);
    expect(up.incrementalRevenue).toBeCloseTo(up.lift! * 6, 6);
    const down = liftFigures([1, 2, 1, 2, 1, 2], [10, 12, 11, 13, 12, 11]);
    expect(down.significant).toBe(true);
    expect(down.billableRevenue).toBe(0);
    const noise = liftFigures([1, 5, 2, 8, 0, 3], [2, 4, 3, 6, 1, 2]);
    expect(noise.significant).toBe(false);
    expect(noise.billableRevenue).toBe(0);
  });

  it('reports null statistics (and bills nothing) with fewer than two customers in a group', () => {
    expect(liftFigures([10, 20, 30], [5])).toMatchObject({
      treatedCustomers: 3,
      holdoutCustomers: 1,
      treatedRevenuePerCustomer: 20,
      holdoutRevenuePerCustomer: 5,
      lift: 15,
      ciLow: null,
      ciHigh: null,
      pValue: null,
      mde: null,
      significant: false,
      billableRevenue: 0,
    });
    expect(liftFigures([], [])).toMatchObject({
      treatedRevenuePerCustomer: null,
      lift: null,
      incrementalRevenue: null,
    });
  });
});

describe('monthPeriods', () => {
  it('gives the current and previous calendar months in UTC', () => {
    expect(
      monthPeriods(new Date('2025-01-15T23:00:00-05:00'), 1).map((p) => [
        p.start.toISOString(),
        p.end.toISOString(),
      ]),
    ).toEqual([
      ['2024-12-01T00:00:00.000Z', '2025-01-01T00:00:00.000Z'],
      ['2025-01-01T00:00:00.000Z', '2025-02-01T00:00:00.000Z'],
    ]);
  });
});
