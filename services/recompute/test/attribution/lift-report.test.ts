import { describe, expect, it } from 'vitest';
import { HOLDOUT_SHARE, decideBilling, isHoldout } from '@holdfast/analytics';
import {
  liftFigures,
  monthPeriods,
  settlingPeriods,
  type LiftFigures,
} from '../../src/attribution/lift-report.js';
import { mulberry32 } from '@holdfast/testing';

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
// 2,000 holdout customers per report. The lift test itself is checked over holdouts of 500–10,000 and
// heavier tails by `npm run bench -- lift` (docs/analytics.md, "Lift statistics").
const SPLITS = Array.from({ length: 5 }, (_, a) =>
  Array.from({ length: 40_000 }, (_, i) => isHoldout(`sim-account-${a}`, `customer-${i}`)),
);

/** What production bills for a report of a month still settling (the billing rule on these figures). */
const billable = (f: LiftFigures): number =>
  decideBilling({
    ...f,
    periodEnd: new Date('2025-04-01T00:00:00Z'),
    now: new Date('2025-04-02T00:00:00Z'),
  }).billableRevenue;

/** Simulated lift reports; every experiment draws fresh revenue for a fixed hash holdout. */
function simulate(effect: number, seed: number, experiments: number, permutations?: number) {
  const rand = mulberry32(seed);
  const reports = [];
  for (let e = 0; e < experiments; e++) {
    const treated: number[] = [];
    const holdout: number[] = [];
    for (const held of SPLITS[e % SPLITS.length]!) {
      if (held) holdout.push(revenue(rand, 0));
      else treated.push(revenue(rand, effect));
    }
    reports.push(liftFigures(treated, holdout, { permutations }));
  }
  return { reports, holdoutShare: SPLITS.flat().filter(Boolean).length / 200_000 };
}

// 400 experiments per test, fixed seeds (cannot flake); tolerances ≈ 2.5 binomial SE at n = 400.
describe('lift report by simulation (400 experiments, the service’s hash holdout)', () => {
  it('the 95% interval covers a known true lift 92–98% of the time; billing is its lower bound above 0', () => {
    const trueLift = 0.1 * MEAN;
    const { reports, holdoutShare } = simulate(0.1, 20251123, 400);
    expect(Math.abs(holdoutShare - HOLDOUT_SHARE)).toBeLessThan(0.005);
    const covered =
      reports.filter((r) => r.ciLow! <= trueLift && trueLift <= r.ciHigh!).length / reports.length;
    expect(covered).toBeGreaterThanOrEqual(0.92);
    expect(covered).toBeLessThanOrEqual(0.98);
    for (const r of reports) {
      const proven = r.ciLow! > 0;
      expect(proven).toBe(r.pValueGreater! <= 0.025 && r.lift! > 0);
      expect(billable(r)).toBeCloseTo(proven ? r.incrementalRevenue! : 0, 3);
      expect(r.mde).toBeGreaterThan(0);
    }
  }, 600_000); // seconds on an idle machine; generous for a loaded one

  it('under no lift, 2.5% ± 2 pp of reports bill anything (the nominal one-sided level)', () => {
    const { reports } = simulate(0, 424242, 400);
    const billed = reports.filter((r) => billable(r) > 0).length / reports.length;
    expect(billed).toBeGreaterThanOrEqual(0.005);
    expect(billed).toBeLessThanOrEqual(0.045);
    expect(reports.every((r) => r.test === 'permutation')).toBe(true);
  }, 600_000); // seconds on an idle machine; generous for a loaded one
});

describe('liftFigures', () => {
  it('bills only incremental revenue the one-sided test finds positive', () => {
    const up = liftFigures([10, 12, 11, 13, 12, 11], [1, 2, 1, 2, 1, 2]);
    expect(up.significant).toBe(true);
    expect(billable(up)).toBeCloseTo(up.incrementalRevenue!, 4);
    expect(up.incrementalRevenue).toBeCloseTo(up.lift! * 6, 6);
    expect(up.pValueGreater).toBeLessThanOrEqual(0.025);
    expect(up.ciLow).toBeGreaterThan(0);
    const down = liftFigures([1, 2, 1, 2, 1, 2], [10, 12, 11, 13, 12, 11]);
    expect(down.significant).toBe(true);
    expect(down.pValueGreater).toBeGreaterThan(0.5);
    expect(billable(down)).toBe(0);
    const noise = liftFigures([1, 5, 2, 8, 0, 3], [2, 4, 3, 6, 1, 2]);
    expect(noise.significant).toBe(false);
    expect(billable(noise)).toBe(0);
  });

  it('reports null statistics (and bills nothing) with fewer than two customers in a group', () => {
    const few = liftFigures([10, 20, 30], [5]);
    expect(billable(few)).toBe(0);
    expect(few).toMatchObject({
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

  it('given a store in New York, when New Year has come in UTC but not there, then the months are New York’s December and November', () => {
    expect(
      monthPeriods(new Date('2026-01-01T03:00:00Z'), 1, 'America/New_York').map((p) => [
        p.start.toISOString(),
        p.end.toISOString(),
      ]),
    ).toEqual([
      ['2025-11-01T04:00:00.000Z', '2025-12-01T05:00:00.000Z'], // EDT until 2 November
      ['2025-12-01T05:00:00.000Z', '2026-01-01T05:00:00.000Z'],
    ]);
  });

  it('given a store in Berlin, then settling periods are Berlin months whose bounds move with DST', () => {
    const starts = settlingPeriods(new Date('2026-04-10T12:00:00Z'), 60, 'Europe/Berlin').map((p) =>
      p.start.toISOString(),
    );
    expect(starts.slice(-3)).toEqual([
      '2026-01-31T23:00:00.000Z',
      '2026-02-28T23:00:00.000Z',
      '2026-03-31T22:00:00.000Z', // CEST from 29 March
    ]);
  });
});

describe('settlingPeriods', () => {
  it('refreshes every month until the first run after it settles', () => {
    const months = (now: string, days?: number) =>
      settlingPeriods(new Date(now), days).map((p) => p.start.toISOString().slice(0, 7));
    expect(months('2025-06-10T00:00:00Z')).toEqual(['2025-02', '2025-03', '2025-04', '2025-05', '2025-06']);
    // May settles on 2025-07-30; on 2025-07-30 it is still among the months refreshed.
    expect(months('2025-07-30T00:00:00Z')).toContain('2025-05');
    expect(months('2025-06-10T00:00:00Z', 14)).toEqual(['2025-04', '2025-05', '2025-06']);
  });
});
