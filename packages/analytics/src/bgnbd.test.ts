import { describe, expect, it } from 'vitest';
import { bgnbdCustomerLogLikelihood, bgnbdLogLikelihood, fitBgNbd } from './bgnbd.js';
import {
  bgnbdConditionalExpectedPurchases,
  bgnbdExpectedGap,
  bgnbdExpectedPurchases,
  bgnbdMedianTimeToNextPurchase,
  bgnbdProbabilityAlive,
  meanPurchasesWhileAlive,
  meanPurchasesWhileAliveByQuadrature,
} from './bgnbd-predict.js';
import { groupRfm } from './rfm-groups.js';

// Published CDNOW parameters (Fader, Hardie & Lee 2005); reference values computed with mpmath.
const P = { r: 0.243, alpha: 4.414, a: 0.793, b: 2.426 };
const one = { frequency: 2, recency: 30.43, T: 38.86 }; // CDNOW customer 1
const rel = (got: number, want: number): number => Math.abs(got - want) / Math.abs(want);

describe('BG/NBD log-likelihood', () => {
  it('matches hand-checked values, including x = 0', () => {
    expect(
      rel(bgnbdCustomerLogLikelihood(P, { frequency: 0, recency: 0, T: 38.86 }), -0.554713276438158),
    ).toBeLessThan(1e-12);
    expect(rel(bgnbdCustomerLogLikelihood(P, one), -9.45860630706627)).toBeLessThan(1e-12);
    expect(
      rel(bgnbdCustomerLogLikelihood(P, { frequency: 7, recency: 35.71, T: 37.86 }), -22.0087779827925),
    ).toBeLessThan(1e-12);
  });

  it('equals the sum over customers whether grouped or not', () => {
    const rows = [one, one, { frequency: 0, recency: 0, T: 10 }, one, { frequency: 1, recency: 2, T: 10 }];
    const groups = groupRfm(rows);
    expect(groups.weight.length).toBe(3);
    expect(groups.customers).toBe(5);
    const sum = rows.reduce((s, r) => s + bgnbdCustomerLogLikelihood(P, r), 0);
    expect(bgnbdLogLikelihood(P, groups)).toBeCloseTo(sum, 10);
    expect(bgnbdLogLikelihood(P, rows)).toBeCloseTo(sum, 10);
  });

  it('is NaN outside the parameter space and rejects impossible rows', () => {
    expect(bgnbdLogLikelihood({ ...P, r: -1 }, [one])).toBeNaN();
    expect(() => groupRfm([{ frequency: 1, recency: 5, T: 4 }])).toThrow(RangeError);
    expect(() => groupRfm([{ frequency: 0, recency: 1, T: 4 }])).toThrow(RangeError);
    expect(() => groupRfm([{ frequency: 1.5, recency: 1, T: 4 }])).toThrow(RangeError);
  });

  it('fit refuses data without any repeat purchase', () => {
    expect(() => fitBgNbd([{ frequency: 0, recency: 0, T: 5 }])).toThrow(RangeError);
  });
});

describe('P(alive)', () => {
  it('matches hand-checked values', () => {
    expect(bgnbdProbabilityAlive(P, one)).toBeCloseTo(0.726578570080673, 12);
    expect(bgnbdProbabilityAlive(P, { frequency: 7, recency: 35.71, T: 37.86 })).toBeCloseTo(
      0.879233029278235,
      12,
    );
    expect(bgnbdProbabilityAlive(P, { frequency: 1, recency: 1.71, T: 38.86 })).toBeCloseTo(
      0.212100985377379,
      12,
    );
  });

  it('is 1 for x = 0, in (0, 1] otherwise, and (b+x−1)/(a+b+x−1) right after a purchase', () => {
    expect(bgnbdProbabilityAlive(P, { frequency: 0, recency: 0, T: 100 })).toBe(1);
    expect(bgnbdProbabilityAlive(P, { frequency: 3, recency: 20, T: 20 })).toBeCloseTo(
      (P.b + 2) / (P.a + P.b + 2),
      12,
    );
    expect(bgnbdProbabilityAlive(P, { frequency: 3, recency: 1, T: 1e6 })).toBeGreaterThan(0);
  });

  it('falls with the silence T − t_x; more purchases help only while the silence is short', () => {
    let previous = 1;
    for (const T of [20, 25, 30, 40, 60, 100]) {
      const p = bgnbdProbabilityAlive(P, { frequency: 3, recency: 20, T });
      expect(p).toBeLessThan(previous);
      previous = p;
    }
    // Right after a purchase P(alive) = (b+x−1)/(a+b+x−1) rises with x …
    const fresh = (x: number) => bgnbdProbabilityAlive(P, { frequency: x, recency: 20, T: 20 });
    expect(fresh(2)).toBeLessThan(fresh(5));
    expect(fresh(5)).toBeLessThan(fresh(10));
    // … but a long silence says more about a frequent buyer (the odds grow like ((α+T)/(α+t_x))^(r+x)).
    const silent = (x: number) => bgnbdProbabilityAlive(P, { frequency: x, recency: 20, T: 40 });
    expect(silent(10)).toBeLessThan(silent(5));
    expect(silent(5)).toBeLessThan(silent(2));
  });
});

describe('expected purchases', () => {
  it('conditional expectation (eq. 10) matches hand-checked values', () => {
    expect(rel(bgnbdConditionalExpectedPurchases(P, one, 39), 1.22602817476714)).toBeLessThan(1e-10);
    const zero = { frequency: 0, recency: 0, T: 38.86 };
    expect(rel(bgnbdConditionalExpectedPurchases(P, zero, 39), 0.195098052011263)).toBeLessThan(1e-10);
    const seven = { frequency: 7, recency: 35.71, T: 37.86 };
    expect(rel(bgnbdConditionalExpectedPurchases(P, seven, 52), 5.85830917853872)).toBeLessThan(1e-10);
  });

  it('new-customer expectation E[X(t)] (eq. 9) matches hand-checked values and equals E[Y(t) | 0, 0, 0]', () => {
    expect(rel(bgnbdExpectedPurchases(P, 39), 1.19672319332082)).toBeLessThan(1e-10);
    expect(rel(bgnbdExpectedPurchases(P, 78), 1.86051905794277)).toBeLessThan(1e-10);
    const fresh = { frequency: 0, recency: 0, T: 0 };
    for (const t of [1, 10, 100]) {
      expect(bgnbdConditionalExpectedPurchases(P, fresh, t)).toBeCloseTo(bgnbdExpectedPurchases(P, t), 10);
    }
  });

  it('is 0 at t = 0 and increases with t, less than linearly', () => {
    expect(bgnbdConditionalExpectedPurchases(P, one, 0)).toBe(0);
    const e = [1, 2, 4, 8, 16, 32].map((t) => bgnbdConditionalExpectedPurchases(P, one, t));
    for (let i = 1; i < e.length; i++) {
      expect(e[i]).toBeGreaterThan(e[i - 1] as number);
      expect(e[i]).toBeLessThan(2 * (e[i - 1] as number));
    }
  });

  it('closed form (₂F₁) and Beta-integral quadrature agree across a grid', () => {
    for (const n of [0.243, 1.5, 10.2])
      for (const a of [0.3, 0.793, 1.7, 5])
        for (const bPrime of [0.4, 2.426, 20])
          for (const t of [0.5, 39, 500]) {
            const closed = meanPurchasesWhileAlive(n, 30, a, bPrime, t);
            const quad = meanPurchasesWhileAliveByQuadrature(n, 30, a, bPrime, t);
            expect(rel(closed, quad), `n=${n} a=${a} b'=${bPrime} t=${t}`).toBeLessThan(1e-8);
          }
  });

  it('stays finite where the closed form does not apply (a = 1, a + b − 1 ≤ 0)', () => {
    const at1 = bgnbdExpectedPurchases({ ...P, a: 1 }, 39);
    const near1 = bgnbdExpectedPurchases({ ...P, a: 1.001 }, 39);
    expect(rel(at1, near1)).toBeLessThan(1e-3);
    const small = meanPurchasesWhileAlive(0.5, 10, 0.3, 0.4, 20); // c = −0.3
    expect(Number.isFinite(small) && small > 0).toBe(true);
  });
});

describe('expected gap and next purchase', () => {
  it('expected gap is (α + t_x)/(r + x)', () => {
    expect(bgnbdExpectedGap(P, one)).toBeCloseTo((4.414 + 30.43) / 2.243, 12);
    expect(bgnbdExpectedGap(P, { frequency: 0, recency: 0, T: 5 })).toBeCloseTo(4.414 / 0.243, 12);
  });

  it('median time to next purchase solves P(purchase within u) = ½, null when P(alive) ≤ ½', () => {
    const u = bgnbdMedianTimeToNextPurchase(P, one) as number;
    const pa = bgnbdProbabilityAlive(P, one);
    const pNone = 1 - pa + pa * Math.pow((P.alpha + one.T) / (P.alpha + one.T + u), P.r + one.frequency);
    expect(pNone).toBeCloseTo(0.5, 12);
    expect(bgnbdMedianTimeToNextPurchase(P, { frequency: 1, recency: 1.71, T: 38.86 })).toBeNull();
  });
});
