import { describe, expect, it } from 'vitest';
import { parseDryRun, parseIntParam } from '../../src/http/query.js';
import { ValidationFailedError } from '../../src/http/validation-failed.js';

const issues = (fn: () => unknown) => {
  try {
    fn();
  } catch (err) {
    if (err instanceof ValidationFailedError) return err.issues;
    throw err;
  }
  throw new Error('no validation error');
};

describe('parseDryRun', () => {
  it.each([
    [undefined, false],
    ['true', true],
    ['TRUE', true],
    ['1', true],
    ['yes', true],
    ['false', false],
    ['0', false],
    ['off', false],
  ])('dry_run=%s is %s', (raw, expected) => {
    expect(parseDryRun(raw === undefined ? {} : { dry_run: raw })).toBe(expected);
  });

  it('anything else is a 422 entry at [query, dry_run]', () => {
    expect(issues(() => parseDryRun({ dry_run: 'maybe' }))).toEqual([
      {
        type: 'bool_parsing',
        loc: ['query', 'dry_run'],
        msg: 'Input should be a valid boolean, unable to interpret input',
        input: 'maybe',
      },
    ]);
  });
});

describe('parseIntParam', () => {
  const bounds = { min: 1, max: 200, fallback: 50 };

  it('takes the fallback when absent and the value within bounds', () => {
    expect(parseIntParam({}, 'limit', bounds)).toBe(50);
    expect(parseIntParam({ limit: '1' }, 'limit', bounds)).toBe(1);
    expect(parseIntParam({ limit: '200' }, 'limit', bounds)).toBe(200);
  });

  it.each([
    ['0', 'greater_than_equal'],
    ['-3', 'greater_than_equal'],
    ['201', 'less_than_equal'],
    ['1.5', 'int_parsing'],
    ['', 'int_parsing'],
  ])('limit=%j is a 422 %s', (raw, type) => {
    expect(issues(() => parseIntParam({ limit: raw }, 'limit', bounds))[0]).toMatchObject({
      type,
      loc: ['query', 'limit'],
    });
  });
});
