import { describe, expect, it } from 'vitest';
import { bgnbdLogLikelihood, bgnbdLogLikelihoodGradient } from './bgnbd.js';
import {
  fitGammaGamma,
  gammaGammaExpectedSpend,
  gammaGammaLogLikelihood,
  gammaGammaLogLikelihoodGradient,
} from './gamma-gamma.js';
import { mulberry32 } from './prng.js';
import { variates } from './random-variates.js';

// Published CDNOW spend parameters (Fader, Hardie & Lee 2005, JMR); reference values from mpmath.
const G = { p: 6.25, q: 3.74, gamma: 15.44 };

describe('Gamma-Gamma', () => {
  it('log-likelihood matches hand-checked values and skips rows without spend information', () => {
    expect(gammaGammaLogLikelihood(G, [{ frequency: 2, monetaryValue: 22.35 }])).toBeCloseTo(
      -3.5513167597317,
      11,
    );
    expect(gammaGammaLogLikelihood(G, [{ frequency: 1, monetaryValue: 11.77 }])).toBeCloseTo(
      -3.73770967874084,
      11,
    );
    const rows = [
      { frequency: 2, monetaryValue: 22.35 },
      { frequency: 0, monetaryValue: 0 },
      { frequency: 3, monetaryValue: 0 },
    ];
    expect(gammaGammaLogLikelihood(G, rows)).toBeCloseTo(-3.5513167597317, 11);
    expect(gammaGammaLogLikelihood({ ...G, q: 0 }, rows)).toBeNaN();
  });

  it('expected spend p(γ + x·m_x)/(px + q − 1) shrinks m_x towards the population mean pγ/(q − 1)', () => {
    expect(gammaGammaExpectedSpend(G, { frequency: 2, monetaryValue: 22.35 })).toBeCloseTo(
      24.6637139107612,
      11,
    );
    const population = (G.p * G.gamma) / (G.q - 1);
    expect(gammaGammaExpectedSpend(G, { frequency: 0, monetaryValue: 0 })).toBeCloseTo(population, 12);
    const weight = (x: number) => (G.p * x) / (G.p * x + G.q - 1);
    for (const x of [1, 5, 50]) {
      const m = 100;
      const expected = weight(x) * m + (1 - weight(x)) * population;
      expect(gammaGammaExpectedSpend(G, { frequency: x, monetaryValue: m })).toBeCloseTo(expected, 10);
    }
    // More transactions → closer to the customer's own mean.
    const e1 = gammaGammaExpectedSpend(G, { frequency: 1, monetaryValue: 100 });
    const e10 = gammaGammaExpectedSpend(G, { frequency: 10, monetaryValue: 100 });
    expect(e1).toBeLessThan(e10);
    expect(e10).toBeLessThan(100);
    expect(gammaGammaExpectedSpend({ ...G, q: 0.5 }, { frequency: 0, monetaryValue: 0 })).toBeNaN();
  });

  it('fit refuses data without repeat spend', () => {
    expect(() => fitGammaGamma([{ frequency: 0, monetaryValue: 10 }])).toThrow(RangeError);
  });
});

describe('analytic gradients', () => {
  const fd = (f: (h: number) => number): number => {
    const h = 1e-6;
    return (f(h) - f(-h)) / (2 * h);
  };
  it('Gamma-Gamma gradient matches central finite differences', () => {
    const rows = [
      { frequency: 2, monetaryValue: 22.35 },
      { frequency: 1, monetaryValue: 11.77 },
      { frequency: 7, monetaryValue: 40.1 },
    ];
    const grad = gammaGammaLogLikelihoodGradient(G, rows);
    (['p', 'q', 'gamma'] as const).forEach((k, i) => {
      const numeric = fd((h) => gammaGammaLogLikelihood({ ...G, [k]: G[k] + h }, rows));
      expect(grad[i]).toBeCloseTo(numeric, 5);
    });
  });
  it('BG/NBD gradient matches central finite differences', () => {
    const P = { r: 0.243, alpha: 4.414, a: 0.793, b: 2.426 };
    const rows = [
      { frequency: 0, recency: 0, T: 38.86 },
      { frequency: 2, recency: 30.43, T: 38.86 },
      { frequency: 7, recency: 35.71, T: 37.86 },
      { frequency: 1, recency: 1.71, T: 38.86 },
    ];
    const grad = bgnbdLogLikelihoodGradient(P, rows);
    (['r', 'alpha', 'a', 'b'] as const).forEach((k, i) => {
      const numeric = fd((h) => bgnbdLogLikelihood({ ...P, [k]: P[k] + h }, rows));
      expect(grad[i]).toBeCloseTo(numeric, 5);
    });
  });

  it('given repeat buyers simulated from known parameters, when fitted, then the covariance of ln(p, q, γ) is positive definite, holds the truth within 4 standard errors and shrinks like 1/n', () => {
    // Given: ν ~ Gamma(q, γ) per buyer, x ∈ 1..5 purchases of Gamma(p, ν), m_x their mean.
    const buyers = (n: number, seed: number) => {
      const v = variates(mulberry32(seed));
      return Array.from({ length: n }, (_, i) => {
        const nu = v.gamma(G.q) / G.gamma;
        const x = 1 + (i % 5);
        let sum = 0;
        for (let j = 0; j < x; j++) sum += v.gamma(G.p) / nu;
        return { frequency: x, monetaryValue: sum / x };
      });
    };
    // When
    const small = fitGammaGamma(buyers(2_000, 5));
    const large = fitGammaGamma(buyers(8_000, 6));
    // Then
    for (const fit of [small, large]) {
      expect(fit.converged).toBe(true);
      const cov = fit.logCovariance!;
      expect(cov).not.toBeNull();
      const truth = [G.p, G.q, G.gamma].map(Math.log);
      const estimate = [fit.params.p, fit.params.q, fit.params.gamma].map(Math.log);
      truth.forEach((t, i) => {
        expect(cov[i]![i]!).toBeGreaterThan(0);
        expect(Math.abs(estimate[i]! - t) / Math.sqrt(cov[i]![i]!)).toBeLessThan(4);
      });
      expect(cov[0]![1]).toBeCloseTo(cov[1]![0]!, 12);
    }
    // Four times the buyers: about a quarter of the variance.
    for (let i = 0; i < 3; i++) {
      const ratio = large.logCovariance![i]![i]! / small.logCovariance![i]![i]!;
      expect(ratio).toBeGreaterThan(0.15);
      expect(ratio).toBeLessThan(0.4);
    }
  });
});
