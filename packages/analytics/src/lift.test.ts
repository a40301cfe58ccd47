import { describe, expect, it } from 'vitest';
import { liftStatistics } from './lift.js';
import { REVENUE_MODELS, runLiftSimulation } from './lift-simulation.js';
import { mulberry32 } from './prng.js';
import { hallTransform, inverseHallTransform } from './skew-corrected-t.js';
import { studentTQuantile } from './student-t.js';

describe('liftStatistics', () => {
  it('matches scipy (ttest_ind with equal_var=False) on a hand-made example', () => {
    const treated = [0, 0, 12.5, 30, 0, 8.25, 55, 0, 0, 19.9, 3, 0];
    const holdout = [0, 10, 0, 0, 4.5, 0, 22];
    const r = liftStatistics(treated, holdout, { test: 'welch' });
    expect(r.lift).toBeCloseTo(5.506547619047619, 12);
    expect(r.tStatistic).toBeCloseTo(0.9456295855741165, 12);
    expect(r.pValue).toBeCloseTo(0.35780722135170917, 10);
    expect(r.standardError).toBeCloseTo(5.823154967919547, 12);
    expect(r.degreesOfFreedom).toBeCloseTo(16.71592103424931, 10);
    expect(r.confidenceInterval[0]).toBeCloseTo(-6.7951596143409345, 9);
    expect(r.confidenceInterval[1]).toBeCloseTo(17.80825485243617, 9);
    expect(r.minimumDetectableEffect).toBeCloseTo(17.330910103448026, 9);
    expect(r.significant).toBe(false);
    expect(r.incrementalRevenue).toBeCloseTo(5.506547619047619 * 12, 10);
    expect(r.confidenceLevel).toBe(0.95);
  });

  it('handles tiny and constant groups', () => {
    const tiny = liftStatistics([5], [1, 2, 3]);
    expect(tiny.lift).toBe(3);
    expect(tiny.pValue).toBeNaN();
    expect(tiny.significant).toBe(false);
    const constant = liftStatistics([2, 2, 2], [1, 1]);
    expect(constant.confidenceInterval).toEqual([1, 1]);
    expect(constant.pValue).toBe(0);
    expect(constant.significant).toBe(true);
    expect(liftStatistics([1, 1], [1, 1]).pValue).toBe(1);
  });

  it('honours alpha and power', () => {
    const treated = [0, 0, 12.5, 30, 0, 8.25, 55, 0, 0, 19.9, 3, 0];
    const holdout = [0, 10, 0, 0, 4.5, 0, 22];
    const r95 = liftStatistics(treated, holdout, { test: 'hall' });
    const r80 = liftStatistics(treated, holdout, { alpha: 0.2, power: 0.9, test: 'hall' });
    expect(r80.confidenceInterval[1] - r80.confidenceInterval[0]).toBeLessThan(
      r95.confidenceInterval[1] - r95.confidenceInterval[0],
    );
    expect(r80.confidenceLevel).toBeCloseTo(0.8, 12);
    expect(r80.pValue).toBe(r95.pValue);
  });
});

describe('Hall skewness correction', () => {
  it.each([-0.8, -0.1, 0, 0.05, 0.6])('g is inverted exactly (lambda %d)', (lambda) => {
    for (const y of [-3, -1.96, 0, 1.2, 1.96, 4])
      expect(hallTransform(inverseHallTransform(y, lambda), lambda)).toBeCloseTo(y, 10);
  });

  it('given right-skewed groups, when the holdout is the small one, then λ < 0 and the interval is the set |g| ≤ t', () => {
    const treated = [0, 0, 12.5, 30, 0, 8.25, 55, 0, 0, 19.9, 3, 0, 250, 0, 4];
    const holdout = [0, 10, 0, 0, 4.5, 0, 22, 180];
    const r = liftStatistics(treated, holdout, { test: 'hall' });
    expect(r.skewness).toBeLessThan(0);
    const c = studentTQuantile(0.975, r.degreesOfFreedom);
    expect(hallTransform((r.lift - r.confidenceInterval[0]) / r.standardError, r.skewness)).toBeCloseTo(c, 9);
    expect(hallTransform((r.lift - r.confidenceInterval[1]) / r.standardError, r.skewness)).toBeCloseTo(
      -c,
      9,
    );
    // Welch's interval is symmetric; the corrected one is not.
    const w = liftStatistics(treated, holdout, { test: 'welch' });
    expect(w.lift - w.confidenceInterval[0]).toBeCloseTo(w.confidenceInterval[1] - w.lift, 9);
    expect(r.lift - r.confidenceInterval[0]).not.toBeCloseTo(r.confidenceInterval[1] - r.lift, 3);
  });
});

// The short version of `npm run bench -- lift` (docs/analytics.md §8): 400 experiments instead of 1,000,
// fixed seeds, so the figures are the same on every run and the test cannot flake. Tolerances are ~2.5
// binomial SE at n = 400: sqrt(0.025 × 0.975 / 400) = 0.78 pp for the billing rate, sqrt(0.95 × 0.05 /
// 400) = 1.09 pp for coverage.
describe('lift billing by simulation (treated = 19 × holdout)', () => {
  const methods = { permutation: {}, welch: { test: 'welch' } } as const;

  it.each([
    ['lognormal', REVENUE_MODELS.lognormal, 11],
    ['heavy', REVENUE_MODELS.heavy, 12],
  ] as const)(
    'given %s revenue and no lift, then the permutation test bills 2.5% ± 2 pp',
    (_n, model, seed) => {
      const r = runLiftSimulation(
        { holdout: 1000, ratio: 19, model, effect: 0, experiments: 400, seed },
        methods,
      );
      console.info(
        `${model.name}: billed permutation ${r.permutation.billedRate}, welch ${r.welch.billedRate}`,
      );
      expect(r.permutation.billedRate).toBeGreaterThanOrEqual(0.005);
      expect(r.permutation.billedRate).toBeLessThanOrEqual(0.045);
    },
    600_000,
  );

  it('given lognormal revenue and a 10% lift, then the 95% interval covers 95% ± 3 pp and power is reported', () => {
    const r = runLiftSimulation(
      { holdout: 1000, ratio: 19, model: REVENUE_MODELS.lognormal, effect: 0.1, experiments: 400, seed: 13 },
      { permutation: {} },
    );
    console.info(
      `coverage ${r.permutation.coverage}, power ${r.permutation.billedRate}, MDE ${r.permutation.meanMde}`,
    );
    expect(r.permutation.coverage).toBeGreaterThanOrEqual(0.92);
    expect(r.permutation.coverage).toBeLessThanOrEqual(0.98);
    expect(r.permutation.billedRate).toBeGreaterThan(0.1);
  }, 600_000); // seconds on an idle machine; generous for a loaded one

  it('given whales (0.5% of buyers spend 40×), a holdout of 500 and no lift, then the permutation interval covers 95% ± 3 pp where Welch and Hall do not', () => {
    const r = runLiftSimulation(
      { holdout: 500, ratio: 19, model: REVENUE_MODELS.whales, effect: 0, experiments: 400, seed: 14 },
      { permutation: {}, hall: { test: 'hall' }, welch: { test: 'welch' } },
    );
    console.info(
      `whales: coverage permutation ${r.permutation.coverage}, hall ${r.hall.coverage}, welch ${r.welch.coverage}; ` +
        `billed ${r.permutation.billedRate}`,
    );
    expect(r.permutation.coverage).toBeGreaterThanOrEqual(0.92);
    expect(r.permutation.coverage).toBeLessThanOrEqual(0.98);
    expect(r.permutation.billedRate).toBeLessThanOrEqual(0.045);
    // The t-based intervals miss on the side that bills: a holdout without its whale looks like lift.
    expect(r.welch.coverage).toBeLessThan(0.9);
    expect(r.hall.coverage).toBeLessThan(0.9);
  }, 600_000);
});

describe('liftStatistics with the permutation test', () => {
  it('given a report, then significantlyPositive is "lower bound > 0" and the interval holds the lift', () => {
    const u = mulberry32(21);
    for (let e = 0; e < 30; e++) {
      const draw = (n: number, f: number): number[] =>
        Array.from({ length: n }, () => (u() < 0.7 ? 0 : f * Math.exp(3 + 1.5 * (u() + u() + u() - 1.5))));
      const r = liftStatistics(draw(600, 1 + e / 20), draw(40, 1));
      expect(r.significantlyPositive).toBe(r.confidenceInterval[0] > 0);
      expect(r.significantlyPositive).toBe(r.pValueGreater <= 0.025 && r.lift > 0);
      expect(r.confidenceInterval[0]).toBeLessThanOrEqual(r.lift);
      expect(r.confidenceInterval[1]).toBeGreaterThanOrEqual(r.lift);
      expect(r.test).toBe('permutation');
    }
  });
});
