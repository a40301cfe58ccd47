import { describe, expect, it } from 'vitest';
import { bgnbdConditionalExpectedPurchases } from './bgnbd-predict.js';
import { bgnbdGammaGammaClv, discountedPurchases } from './clv.js';
import { gammaGammaExpectedSpend } from './gamma-gamma.js';

describe('discountedPurchases', () => {
  it('without discounting equals the cumulative expectation at the horizon', () => {
    const cumulative = (t: number) => Math.sqrt(t);
    expect(discountedPurchases(cumulative, { horizon: 52, discountRate: 0 })).toBeCloseTo(Math.sqrt(52), 12);
  });

  it('discounts each step to its end: linear purchases, one a month for a year at 12.68%', () => {
    const year = 365.25; // days
    const cumulative = (t: number) => (12 * t) / year;
    const rate = 0.1268;
    const got = discountedPurchases(cumulative, { horizon: year, discountRate: rate, timeUnit: 'days' });
    let want = 0;
    for (let i = 1; i <= 12; i++) want += Math.pow(1 + rate, -i / 12);
    expect(got).toBeCloseTo(want, 10);
  });

  it('handles a horizon that is not a whole number of steps and custom steps', () => {
    const cumulative = (t: number) => t;
    expect(discountedPurchases(cumulative, { horizon: 10, discountRate: 0, step: 3 })).toBeCloseTo(10, 12);
    expect(discountedPurchases(cumulative, { horizon: 0, discountRate: 0.1 })).toBe(0);
    expect(() => discountedPurchases(cumulative, { horizon: 10, discountRate: 0.1, step: 0 })).toThrow(
      RangeError,
    );
  });
});

describe('bgnbdGammaGammaClv', () => {
  const bg = { r: 0.243, alpha: 4.414, a: 0.793, b: 2.426 };
  const gg = { p: 6.25, q: 3.74, gamma: 15.44 };
  const customer = { frequency: 2, recency: 30.43, T: 38.86, monetaryValue: 22.35 };

  it('is expected spend × expected purchases when not discounted', () => {
    const clv = bgnbdGammaGammaClv(bg, gg, customer, { horizon: 52, discountRate: 0 });
    const want = gammaGammaExpectedSpend(gg, customer) * bgnbdConditionalExpectedPurchases(bg, customer, 52);
    expect(clv).toBeCloseTo(want, 10);
  });

  it('falls as the discount rate rises and grows with the horizon', () => {
    const at = (horizon: number, discountRate: number) =>
      bgnbdGammaGammaClv(bg, gg, customer, { horizon, discountRate });
    expect(at(52, 0.2)).toBeLessThan(at(52, 0.05));
    expect(at(52, 0.1)).toBeLessThan(at(104, 0.1));
  });
});
