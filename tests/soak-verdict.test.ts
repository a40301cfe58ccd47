// The soak's steady-state slope (bench/soak.ts): MiB per minute by least squares over (ms, MiB) samples.
import { describe, expect, it } from 'vitest';
import { slopePerMinute } from '../bench/soak.js';

describe('slopePerMinute', () => {
  it('given a flat line, when fitted, then 0', () => {
    expect(slopePerMinute([0, 5_000, 10_000].map((t) => [t, 200] as const))).toBe(0);
  });
  it('given 1 MiB more every 30 s with noise around it, when fitted, then 2 MiB/min', () => {
    const points = Array.from(
      { length: 60 },
      (_, i) => [i * 5_000, 100 + i / 6 + (i % 2 ? 0.5 : -0.5)] as const,
    );
    expect(slopePerMinute(points)).toBeCloseTo(2, 1);
  });
  it('given fewer than two samples, then 0', () => {
    expect(slopePerMinute([[0, 100]])).toBe(0);
  });
});
