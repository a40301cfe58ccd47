import { describe, expect, it } from 'vitest';
import { hyp2f1 } from './hypergeometric.js';
import { integrate } from './quadrature.js';
import {
  digamma,
  logBeta,
  logGamma,
  logSumExp,
  median,
  regularizedIncompleteBeta,
} from './special-functions.js';
import { studentTCdf, studentTQuantile } from './student-t.js';

// Reference values computed with mpmath (30 digits) and scipy.stats.
const rel = (got: number, want: number): number => Math.abs(got - want) / Math.abs(want);

describe('logGamma / logBeta', () => {
  it('matches known values', () => {
    expect(logGamma(0.5)).toBeCloseTo(0.5 * Math.log(Math.PI), 14);
    expect(logGamma(1)).toBeCloseTo(0, 14);
    expect(logGamma(2)).toBeCloseTo(0, 14);
    expect(rel(logGamma(10), Math.log(362880))).toBeLessThan(1e-14);
    expect(rel(logGamma(0.243), 1.3180435846996699)).toBeLessThan(1e-13);
    expect(rel(logGamma(0.001), 6.907178885383853)).toBeLessThan(1e-13);
    expect(rel(logGamma(171.5), 709.1431630309282)).toBeLessThan(1e-14);
    expect(rel(logGamma(1e5), 1051287.7089736569)).toBeLessThan(1e-14);
  });
  it('logBeta(a, b) = ln Γ(a) + ln Γ(b) − ln Γ(a+b), e.g. B(2,3) = 1/12', () => {
    expect(logBeta(2, 3)).toBeCloseTo(Math.log(1 / 12), 13);
  });
  it('digamma matches closed forms', () => {
    const eulerGamma = 0.5772156649015329;
    expect(digamma(1)).toBeCloseTo(-eulerGamma, 14);
    expect(digamma(0.5)).toBeCloseTo(-eulerGamma - 2 * Math.LN2, 13);
    let harmonic = 0;
    for (let k = 1; k <= 9; k++) harmonic += 1 / k;
    expect(digamma(10)).toBeCloseTo(harmonic - eulerGamma, 14);
    expect(digamma(0.243) - digamma(1.243)).toBeCloseTo(-1 / 0.243, 12);
    expect(digamma(1e6)).toBeCloseTo(Math.log(1e6) - 0.5e-6, 12);
    expect(digamma(0)).toBeNaN();
  });
  it('logSumExp does not overflow', () => {
    expect(logSumExp(1000, 1000)).toBeCloseTo(1000 + Math.LN2, 10);
    expect(logSumExp(-Infinity, 3)).toBe(3);
  });
  it('median', () => {
    expect(median([3, 1, 2])).toBe(2);
    expect(median([4, 1, 2, 3])).toBe(2.5);
    expect(median([])).toBeNaN();
  });
});

describe('regularizedIncompleteBeta', () => {
  it('matches mpmath', () => {
    expect(regularizedIncompleteBeta(0.4, 2, 3)).toBeCloseTo(0.5248, 14);
    expect(rel(regularizedIncompleteBeta(0.1, 0.5, 0.5), 0.20483276469913345)).toBeLessThan(1e-13);
    expect(rel(regularizedIncompleteBeta(0.47, 50, 60), 0.6293226828954606)).toBeLessThan(1e-12);
    expect(regularizedIncompleteBeta(0, 2, 3)).toBe(0);
    expect(regularizedIncompleteBeta(1, 2, 3)).toBe(1);
  });
});

describe('Student t', () => {
  it('CDF matches scipy and closed forms', () => {
    expect(studentTCdf(-2.5, 7.3)).toBeCloseTo(0.019825117332800214, 13);
    expect(studentTCdf(8, 3)).toBeCloseTo(0.9979617112061072, 13);
    expect(studentTCdf(1.3, 1)).toBeCloseTo(0.5 + Math.atan(1.3) / Math.PI, 13); // Cauchy
    expect(studentTCdf(0, 5)).toBe(0.5);
  });
  it('quantile matches scipy and inverts the CDF', () => {
    expect(studentTQuantile(0.975, 10)).toBeCloseTo(2.228138851986274, 11);
    expect(studentTQuantile(0.975, 3.7)).toBeCloseTo(2.8675207071911895, 11);
    expect(studentTQuantile(0.8, 55.5)).toBeCloseTo(0.8481456780197651, 11);
    expect(studentTQuantile(0.025, 10)).toBeCloseTo(-2.228138851986274, 11);
    expect(studentTQuantile(0.975, 1e7)).toBeCloseTo(1.959963984540054, 6); // → normal
    for (const p of [1e-6, 0.1, 0.5, 0.9, 0.999])
      expect(studentTCdf(studentTQuantile(p, 4.2), 4.2)).toBeCloseTo(p, 12);
  });
});

describe('hyp2f1', () => {
  it('matches mpmath, including z near 1 (Euler transformation)', () => {
    const cases: [number, number, number, number, number][] = [
      [1.2, 2.5, 3.1, 0.3, 1.4043890035646236],
      [0.243, 2.426, 2.219, 0.5, 1.2070970070440423],
      [2.243, 4.426, 4.219, 0.9, 248.8689022062316],
      [10.2, 12.4, 11.2, 0.95, 610855170048137.4],
      [0.5, 0.7, 0.2, 0.99, 197.24944124364472],
      [3, 4, 1.5, 0.8, 22607.035379385194],
    ];
    for (const [a, b, c, z, want] of cases) expect(rel(hyp2f1(a, b, c, z), want)).toBeLessThan(1e-11);
  });
  it('satisfies closed forms', () => {
    for (const z of [0.1, 0.6, 0.97]) {
      expect(rel(hyp2f1(1, 1, 2, z), -Math.log(1 - z) / z)).toBeLessThan(1e-12);
      expect(rel(hyp2f1(0.7, 2.3, 2.3, z), Math.pow(1 - z, -0.7))).toBeLessThan(1e-12);
    }
    expect(rel(hyp2f1(0.5, 0.5, 1.5, 0.25), Math.asin(0.5) / 0.5)).toBeLessThan(1e-13);
    expect(hyp2f1(-2, 3, 4, 0.5)).toBeCloseTo(1 - 0.75 + 0.15, 14); // terminating series
    expect(hyp2f1(1, 1, 2, 0)).toBe(1);
  });
  it('returns NaN outside [0, 1) and at poles of c', () => {
    expect(hyp2f1(1, 1, 2, 1)).toBeNaN();
    expect(hyp2f1(1, 1, -1, 0.5)).toBeNaN();
  });
});

describe('integrate (tanh-sinh)', () => {
  it('handles smooth integrands and endpoint singularities', () => {
    expect(integrate(Math.sin, 0, Math.PI)).toBeCloseTo(2, 12);
    expect(integrate((x) => 1 / Math.sqrt(x), 0, 1)).toBeCloseTo(2, 9);
    expect(integrate((x) => Math.log(x), 0, 1)).toBeCloseTo(-1, 10);
  });
});
