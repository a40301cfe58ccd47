import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { hypergeometricSample } from './hypergeometric-sample.js';
import { permutationInterval } from './permutation-test.js';
import { mulberry32 } from './prng.js';

/** Welch's t of two samples, straight from the definition. */
function welchT(a: readonly number[], b: readonly number[]): number {
  const mean = (x: readonly number[]): number => x.reduce((s, v) => s + v, 0) / x.length;
  const variance = (x: readonly number[], m: number): number =>
    x.reduce((s, v) => s + (v - m) ** 2, 0) / (x.length - 1);
  const ma = mean(a);
  const mb = mean(b);
  return (ma - mb) / Math.sqrt(variance(a, ma) / a.length + variance(b, mb) / b.length);
}

/** Brute-force one-sided permutation p-value of "lift = delta": re-split (treated − delta) ∪ holdout. */
function bruteForcePGreater(treated: number[], holdout: number[], delta: number, resplits: number): number {
  const shifted = treated.map((v) => v - delta);
  const pooled = [...shifted, ...holdout];
  const observed = welchT(shifted, holdout);
  const u = mulberry32(4242);
  let reached = 0;
  for (let k = 0; k < resplits; k++) {
    for (let i = pooled.length - 1; i > 0; i--) {
      const j = Math.floor(u() * (i + 1));
      [pooled[i], pooled[j]] = [pooled[j]!, pooled[i]!];
    }
    const t = welchT(pooled.slice(holdout.length), pooled.slice(0, holdout.length));
    if (t >= observed - 1e-9 * Math.max(1, Math.abs(observed))) reached++;
  }
  return (1 + reached) / (1 + resplits);
}

/** Skewed revenue with many zeros, as a month of a campaign looks. */
function revenue(seed: number, n: number, factor = 1): number[] {
  const u = mulberry32(seed);
  return Array.from({ length: n }, () =>
    u() < 0.6
      ? 0
      : Math.round(
          100 * factor * Math.exp(3 + 1.2 * Math.sqrt(-2 * Math.log(1 - u())) * Math.cos(2 * Math.PI * u())),
        ) / 100,
  );
}

describe('permutationInterval', () => {
  it('given 5 values split 3/2, when the observed split is the most extreme of the 10, then p ≈ 1/10', () => {
    // Welch's t is largest when the holdout holds the two smallest values: 1 of C(5,2) = 10 splits.
    const r = permutationInterval([30, 40, 50], [1, 2], { permutations: 20_000 });
    expect(r.pValueGreater).toBeGreaterThan(0.09);
    expect(r.pValueGreater).toBeLessThan(0.11);
    expect(r.pValueLess).toBeGreaterThan(0.99);
  });

  it('given skewed revenue with zeros, when compared with brute-force re-splitting, then p at 0 and at the lower bound agree', () => {
    const treated = revenue(1, 400, 1.4);
    const holdout = revenue(2, 60);
    const r = permutationInterval(treated, holdout, { permutations: 9_999 });
    const at0 = bruteForcePGreater(treated, holdout, 0, 4_000);
    expect(Math.abs(r.pValueGreater - at0)).toBeLessThan(0.03);
    // The lower bound is where the one-sided test of "lift = L" has p = 2.5%.
    const atLower = bruteForcePGreater(treated, holdout, r.lower, 4_000);
    expect(atLower).toBeGreaterThan(0.015);
    expect(atLower).toBeLessThan(0.035);
  }, 60_000);

  it('given a clear effect, when the interval is computed, then it excludes 0, and billing agrees with the one-sided test', () => {
    const treated = revenue(3, 2_000, 2);
    const holdout = revenue(4, 500);
    const r = permutationInterval(treated, holdout);
    expect(r.lower).toBeGreaterThan(0);
    expect(r.pValueGreater).toBeLessThanOrEqual(0.025);
    expect(r.upper).toBeGreaterThan(r.lower);
  });

  it('answers NaN for groups below two and is deterministic', () => {
    expect(permutationInterval([1], [1, 2, 3]).lower).toBeNaN();
    const a = revenue(5, 50);
    const b = revenue(6, 20);
    expect(permutationInterval(a, b)).toEqual(permutationInterval(a, b));
  });

  // Groups of 2–30 customers: zeros and skewed amounts, as revenue is.
  const amounts = (min: number) =>
    fc.array(
      fc.oneof(
        fc.constant(0),
        fc.integer({ min: 1, max: 500_000 }).map((v) => v / 100),
      ),
      {
        minLength: min,
        maxLength: 30,
      },
    );
  const mean = (x: readonly number[]): number => x.reduce((s, v) => s + v, 0) / x.length;

  it('property: the interval contains the point estimate, and "lower > 0" is "one-sided p ≤ 2.5% and lift > 0"', () => {
    fc.assert(
      fc.property(amounts(2), amounts(2), (treated, holdout) => {
        const r = permutationInterval(treated, holdout, { permutations: 199 });
        const lift = mean(treated) - mean(holdout);
        expect(r.lower).toBeLessThanOrEqual(lift);
        expect(r.upper).toBeGreaterThanOrEqual(lift);
        expect(r.lower > 0).toBe(r.pValueGreater <= 0.025 && lift > 0);
        expect(r.upper < 0).toBe(r.pValueLess <= 0.025 && lift < 0);
      }),
      { numRuns: 300, seed: 17 },
    );
  });

  it('property: shifting the treated values shifts the interval, scaling both groups scales it', () => {
    // Money: whole cents, not all equal (constant groups are answered exactly, without re-splits).
    const cents = fc.integer({ min: 1, max: 500_000 }).map((v) => v / 100);
    // At least 8 a group: with fewer, the set of shifts the test accepts need not be an interval, and the
    // bounds (found by searching outward from 0) depend on where the search starts.
    const positive = fc.array(cents, { minLength: 8, maxLength: 30 });
    fc.assert(
      fc.property(
        positive,
        positive,
        fc.integer({ min: -50_000, max: 50_000 }).map((v) => v / 100),
        (treated, holdout, c) => {
          // Zero-free after the shift too: the re-splits then follow the same draws (zeros are drawn apart).
          fc.pre(treated.every((v) => v + c !== 0));
          fc.pre(new Set([...treated, ...holdout]).size > 1);
          const r = permutationInterval(treated, holdout, { permutations: 199 });
          const s = permutationInterval(
            treated.map((v) => v + c),
            holdout,
            { permutations: 199 },
          );
          // With a handful of customers no shift may be rejected: then both bounds are infinite.
          const same = (x: number, y: number): boolean =>
            Number.isFinite(y) ? Math.abs(x - y) <= 1e-6 * Math.max(1, Math.abs(r.upper - r.lower)) : x === y;
          expect(same(s.lower - c, r.lower)).toBe(true);
          expect(same(s.upper - c, r.upper)).toBe(true);
        },
      ),
      { numRuns: 200, seed: 18 },
    );
    fc.assert(
      fc.property(amounts(8), amounts(8), fc.integer({ min: 1, max: 1000 }), (treated, holdout, k) => {
        const r = permutationInterval(treated, holdout, { permutations: 199 });
        const s = permutationInterval(
          treated.map((v) => v * k),
          holdout.map((v) => v * k),
          { permutations: 199, seed: 1 },
        );
        const t = permutationInterval(treated, holdout, { permutations: 199, seed: 1 });
        expect(s.pValueGreater).toBe(t.pValueGreater);
        const same = (x: number, y: number): boolean =>
          Number.isFinite(y) ? Math.abs(x - y) <= 1e-6 * Math.max(1, Math.abs(y)) : x === y;
        expect(same(s.lower / k, t.lower)).toBe(true);
        expect(same(s.upper / k, t.upper)).toBe(true);
        expect(r.lower).toBeLessThanOrEqual(r.upper);
      }),
      { numRuns: 200, seed: 19 },
    );
  });
});

describe('hypergeometricSample', () => {
  it('given 20 marked of 50 and 10 draws, when sampled 200,000 times, then the frequencies match the pmf', () => {
    const choose = (n: number, k: number): number => {
      let c = 1;
      for (let i = 1; i <= k; i++) c = (c * (n - k + i)) / i;
      return c;
    };
    const u = mulberry32(7);
    const counts = new Array<number>(11).fill(0);
    const draws = 200_000;
    for (let i = 0; i < draws; i++) counts[hypergeometricSample(u, 50, 20, 10)]!++;
    for (let k = 0; k <= 10; k++) {
      const p = (choose(20, k) * choose(30, 10 - k)) / choose(50, 10);
      const sd = Math.sqrt(draws * p * (1 - p));
      expect(Math.abs(counts[k]! - draws * p)).toBeLessThanOrEqual(5 * sd + 1);
    }
  });

  it('given a holdout-sized draw, then mean and variance are the hypergeometric ones', () => {
    const u = mulberry32(8);
    const [n, marked, draws] = [200_000, 140_000, 10_000];
    const xs = Array.from({ length: 20_000 }, () => hypergeometricSample(u, n, marked, draws));
    const mean = xs.reduce((s, x) => s + x, 0) / xs.length;
    const variance = xs.reduce((s, x) => s + (x - mean) ** 2, 0) / (xs.length - 1);
    const p = marked / n;
    const expectedVariance = draws * p * (1 - p) * ((n - draws) / (n - 1));
    expect(Math.abs(mean - draws * p)).toBeLessThan(5 * Math.sqrt(expectedVariance / xs.length));
    expect(variance / expectedVariance).toBeGreaterThan(0.95);
    expect(variance / expectedVariance).toBeLessThan(1.05);
  });

  it('handles the edges: nothing marked, everything drawn, all marked', () => {
    const u = mulberry32(9);
    expect(hypergeometricSample(u, 10, 0, 5)).toBe(0);
    expect(hypergeometricSample(u, 10, 4, 10)).toBe(4);
    expect(hypergeometricSample(u, 10, 10, 3)).toBe(3);
  });
});
