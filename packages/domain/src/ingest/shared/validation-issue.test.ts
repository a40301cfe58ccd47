import { describe, expect, it } from 'vitest';
import { expectedValues } from './validation-issue.js';

describe('expectedValues', () => {
  it.each([
    [['a'], "'a'"],
    [['a', 'b'], "'a' or 'b'"],
    [['active', 'paused', 'cancelled', null], "'active', 'paused' or 'cancelled'"],
  ])('given %j, when phrased, then it reads %s', (values, text) => {
    expect(expectedValues(values)).toBe(text);
  });
});
