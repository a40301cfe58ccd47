import { describe, expect, it } from 'vitest';
import { keyInQuery, secretKeyInQuery } from '../../src/auth/resolve-principal.js';

describe('a secret key in the query string (refused on every route)', () => {
  it.each([
    [{ api_key: 'tk_live_abc' }],
    [{ x: 'Bearer TK_TEST_abc' }],
    [{ tk_live_abc: '' }],
    [{ a: ['1', 'sk_live_abc'] }],
  ])('given %j, then it is a secret key in the query', (q) => {
    expect(secretKeyInQuery(q)).toBe(true);
  });

  it('given the public pixel key or junk, then it is not (the stricter check of /ingest/* still refuses ?key=)', () => {
    expect(secretKeyInQuery({ key: 'pk_abc', '%ZZ': '\u0000' })).toBe(false);
    expect(keyInQuery({ key: 'pk_abc' })).toBe(true);
  });
});
