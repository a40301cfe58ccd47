import { describe, expect, it } from 'vitest';
import { mulberry32 } from './prng.js';
import { variates } from './random-variates.js';

describe('variates', () => {
  it('given a shape or a mean that overflowed, then the draw is NaN at once (not a loop without end)', () => {
    const v = variates(mulberry32(7));
    expect(v.gamma(Infinity)).toBeNaN();
    expect(v.gamma(Number.NaN)).toBeNaN();
    expect(v.gamma(-1)).toBeNaN();
    expect(v.gamma(0)).toBe(0); // the limit of an underflowed shape, as before
    expect(v.poisson(Infinity)).toBeNaN();
    expect(v.poisson(Number.NaN)).toBeNaN();
  });

  it('given a mean of 1e12, then a Poisson draw comes from the normal approximation, within 6 standard deviations', () => {
    const v = variates(mulberry32(7));
    const draw = v.poisson(1e12);
    expect(Math.abs(draw - 1e12)).toBeLessThan(6e6);
    expect(Number.isInteger(draw)).toBe(true);
  });

  it('given ordinary shapes and means, then the draws have their means (10,000 draws)', () => {
    const v = variates(mulberry32(11));
    let g = 0;
    let small = 0;
    let p = 0;
    for (let i = 0; i < 10_000; i++) {
      g += v.gamma(3);
      small += v.gamma(0.5);
      p += v.poisson(42);
    }
    expect(g / 10_000).toBeCloseTo(3, 1);
    expect(small / 10_000).toBeCloseTo(0.5, 1);
    expect(p / 10_000).toBeCloseTo(42, 0);
  });

  it('given a shape past 1e12, then the draw is the shape (its spread is below a double’s step)', () => {
    expect(variates(mulberry32(1)).gamma(1e13)).toBe(1e13);
  });
});
