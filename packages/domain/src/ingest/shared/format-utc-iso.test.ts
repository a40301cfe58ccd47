import { describe, expect, it } from 'vitest';
import { formatUtcIso } from './format-utc-iso.js';

describe('formatUtcIso', () => {
  it.each([
    [0],
    [-1],
    [951_782_400_000], // 2000-02-29
    [1_704_189_600_123],
    [Date.UTC(2100, 1, 28, 23, 59, 59, 999)],
    [Date.UTC(9999, 11, 31, 23, 59, 59, 999)],
    [Date.UTC(2000, 0, 1) - 146_097 * 86_400_000 * 5], // year 0000
    [Date.UTC(10000, 0, 1)],
    [Date.UTC(2000, 0, 1) - 146_097 * 86_400_000 * 6], // year -400
  ])('given %i ms, when formatted, then it equals toISOString', (ms) => {
    expect(formatUtcIso(ms)).toBe(new Date(ms).toISOString());
  });

  it('given a deterministic spread over years 0000..9999, when formatted, then every value equals toISOString', () => {
    const start = Date.UTC(2000, 0, 1) - 146_097 * 86_400_000 * 5;
    const step = 7_777_777_777; // ~90 days plus an odd time of day
    const mismatches: number[] = [];
    for (let ms = start; ms < Date.UTC(10000, 0, 1); ms += step) {
      if (formatUtcIso(ms) !== new Date(ms).toISOString()) mismatches.push(ms);
    }
    expect(mismatches).toEqual([]);
  });
});
