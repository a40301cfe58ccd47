import { describe, expect, it } from 'vitest';
import { ValidationFailedError } from '../../src/http/validation-failed.js';
import { page } from '../../src/read-api/answers.js';
import { decodeCursor, encodeCursor } from '../../src/read-api/cursor.js';
import { etagOf, notModified } from '../../src/read-api/etag.js';
import { parseCustomerFilter, parsePage } from '../../src/read-api/read-params.js';

const ID = '0b7c3c1e-8f0e-4c47-9d8e-2f1b8e1f2a3b';

function issuesOf(fn: () => unknown): unknown[] {
  try {
    fn();
  } catch (err) {
    if (err instanceof ValidationFailedError) return err.issues.map((i) => i.loc);
    throw err;
  }
  throw new Error('no 422');
}

describe('cursor', () => {
  it('given a customer id, when encoded and decoded, then the same id comes back', () => {
    expect(decodeCursor(encodeCursor(ID))).toBe(ID);
  });

  it.each(['abc', 'djE6bm90LWEtdXVpZA', Buffer.from(`v2:${ID}`).toString('base64url'), 'a+b/c='])(
    'given %j, which this API did not issue, when decoded, then it is a 422 at [query, cursor]',
    (raw) => {
      expect(issuesOf(() => decodeCursor(raw))).toEqual([['query', 'cursor']]);
    },
  );

  it('given no cursor, when decoded, then the walk starts at the beginning', () => {
    expect(decodeCursor(undefined)).toBeNull();
    expect(decodeCursor('')).toBeNull();
  });
});

describe('page', () => {
  const rows = [{ id: 'a' }, { id: 'b' }, { id: 'c' }];
  it('given one row more than the limit, when paged, then next_cursor continues after the last row shown', () => {
    const p = page(
      rows,
      2,
      (r) => r.id,
      (r) => r.id,
    );
    expect(p.items).toEqual(['a', 'b']);
    expect(Buffer.from(p.next_cursor!, 'base64url').toString()).toBe('v1:b');
  });
  it('given no more rows than the limit, when paged, then it is the last page', () => {
    expect(
      page(
        rows,
        3,
        (r) => r.id,
        (r) => r.id,
      ).next_cursor,
    ).toBeNull();
  });
});

describe('etag', () => {
  it('given equal bodies, then equal tags; given another body, then another tag', () => {
    expect(etagOf('{"a":1}')).toBe(etagOf('{"a":1}'));
    expect(etagOf('{"a":1}')).not.toBe(etagOf('{"a":2}'));
  });
  it.each([
    ['"x"', true],
    ['W/"x"', true],
    ['"y", "x"', true],
    ['*', true],
    ['"y"', false],
    [undefined, false],
  ])('given If-None-Match %j, when compared with "x", then not modified is %s', (header, expected) => {
    expect(notModified(header, '"x"')).toBe(expected);
  });
});

describe('read params', () => {
  it('given no query, then 100 rows from the start and no filter', () => {
    expect(parsePage({})).toEqual({ limit: 100, after: null });
    expect(parseCustomerFilter({})).toEqual({
      lifecycleState: null,
      churnRiskMin: null,
      churnRiskMax: null,
      updatedSince: null,
    });
  });

  it('given every filter, then each is parsed', () => {
    expect(
      parseCustomerFilter({
        lifecycle_state: 'Overdue',
        churn_risk_min: '0.25',
        churn_risk_max: '1',
        updated_since: '2026-11-01T00:00:00+01:00',
      }),
    ).toEqual({
      lifecycleState: 'Overdue',
      churnRiskMin: 0.25,
      churnRiskMax: 1,
      updatedSince: new Date('2026-10-31T23:00:00Z'),
    });
  });

  it('given bad values, then one 422 names each of them', () => {
    expect(
      issuesOf(() =>
        parseCustomerFilter({
          lifecycle_state: 'lapsed',
          churn_risk_min: '-0.1',
          churn_risk_max: 'x',
          updated_since: '2026-11-01T00:00:00',
        }),
      ),
    ).toEqual([
      ['query', 'lifecycle_state'],
      ['query', 'churn_risk_min'],
      ['query', 'churn_risk_max'],
      ['query', 'updated_since'],
    ]);
    expect(issuesOf(() => parsePage({ limit: '5001' }))).toEqual([['query', 'limit']]);
  });
});
