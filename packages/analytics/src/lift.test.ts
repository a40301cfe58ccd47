import { describe, expect, it } from 'vitest';
import { liftStatistics } from './lift.js';

describe('liftStatistics', () => {
  it('matches scipy (ttest_ind with equal_var=False) on a hand-made example', () => {
    const treated = [0, 0, 12.5, 30, 0, 8.25, 55, 0, 0, 19.9, 3, 0];
    const holdout = [0, 10, 0, 0, 4.5, 0, 22];
    const r = liftStatistics(treated, holdout);
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
    const r95 = liftStatistics(treated, holdout);
    const r80 = liftStatistics(treated, holdout, { alpha: 0.2, power: 0.9 });
    expect(r80.confidenceInterval[1] - r80.confidenceInterval[0]).toBeLessThan(
      r95.confidenceInterval[1] - r95.confidenceInterval[0],
    );
    expect(r80.confidenceLevel).toBeCloseTo(0.8, 12);
    expect(r80.pValue).toBe(r95.pValue);
  });
});

/** mulberry32: small seeded PRNG so the simulation is reproducible. */
function mulberry32(seed: number): () => number {
  let s = seed >>> 0;
  return () => {
    s = (s + 0x6d2b79f5) >>> 0;
    let t = s;
    t = Math.imul(t ^ (t >>> 15), t | 1);
    t ^= t + Math.imul(t ^ (t >>> 7), t | 61);
    return ((t ^ (t >>> 14)) >>> 0) / 4294967296;
  };
}

describe('lift statistics by simulation', () => {
  // Zero-inflated lognormal revenue per customer: 70% buy nothing; buyers spend exp(N(3.5, 1)), mean
  // ≈ $54.6, so the mean per customer is ≈ $16.4. Treatment multiplies spend by `factor`, so the true
  // lift is known exactly: 0.3 · e^(3.5 + ½) · (factor − 1). Groups of 19,000 treated and 1,000 holdout
  // customers: a 5% holdout of a 20,000-customer account. (With a 250-customer holdout, coverage drops
  // to ≈ 92% and the false-positive rate rises to ≈ 8%; see docs/analytics.md.)
  const P_BUY = 0.3;
  const MU = 3.5;
  const SIGMA = 1;
  const meanSpend = Math.exp(MU + (SIGMA * SIGMA) / 2);
  function experiment(u: () => number, factor: number, nTreated: number, nHoldout: number) {
    const draw = (f: number) => {
      if (u() >= P_BUY) return 0;
      const z = Math.sqrt(-2 * Math.log(1 - u())) * Math.cos(2 * Math.PI * u());
      return f * Math.exp(MU + SIGMA * z);
    };
    const treated = Array.from({ length: nTreated }, () => draw(factor));
    const holdout = Array.from({ length: nHoldout }, () => draw(1));
    return liftStatistics(treated, holdout);
  }

  it('95% interval covers the true lift 93–97% of the time over 1,000 experiments', () => {
    const u = mulberry32(20240601);
    const factor = 1.1;
    const truth = P_BUY * meanSpend * (factor - 1);
    let covered = 0;
    for (let i = 0; i < 1000; i++) {
      const r = experiment(u, factor, 19_000, 1_000);
      if (r.confidenceInterval[0] <= truth && truth <= r.confidenceInterval[1]) covered++;
    }
    console.info(`coverage ${covered / 10}% (true lift $${truth.toFixed(3)} per customer)`);
    expect(covered).toBeGreaterThanOrEqual(930);
    expect(covered).toBeLessThanOrEqual(970);
  }, 60_000);

  it('false-positive rate under no lift is 3–7% over 1,000 experiments', () => {
    const u = mulberry32(7);
    let positives = 0;
    for (let i = 0; i < 1000; i++) if (experiment(u, 1, 19_000, 1_000).significant) positives++;
    console.info(`false positives ${positives / 10}%`);
    expect(positives).toBeGreaterThanOrEqual(30);
    expect(positives).toBeLessThanOrEqual(70);
  }, 60_000);
});
