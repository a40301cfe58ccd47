import { describe, expect, it } from 'vitest';
import { pageText } from '../../src/read-api/read-store.js';

const row = (id: string) => ({ customer_id: id, j: `{"customer_id" : "${id}"}` });

describe('pageText', () => {
  it('given one row more than the limit, when joined, then the limit’s rows with json_agg’s separator and the last shown id', () => {
    expect(pageText([row('a'), row('b'), row('c')], 2)).toEqual({
      items: '[{"customer_id" : "a"}, {"customer_id" : "b"}]',
      lastId: 'b',
    });
  });

  it('given no more rows than the limit, when joined, then all of them and no next page', () => {
    expect(pageText([row('a'), row('b')], 2)).toEqual({
      items: '[{"customer_id" : "a"}, {"customer_id" : "b"}]',
      lastId: null,
    });
  });

  it('given no rows, when joined, then an empty array', () => {
    expect(pageText([], 100)).toEqual({ items: '[]', lastId: null });
  });
});
