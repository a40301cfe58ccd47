import { describe, expect, it } from 'vitest';
import { columnsOf, textArrayLiteral } from '../../src/projections/sql-arrays.js';

describe('sql arrays', () => {
  it('quotes text[] literals', () => {
    expect(textArrayLiteral(['a', 'b "c"', 'd\\e', ''])).toBe('{"a","b \\"c\\"","d\\\\e",""}');
    expect(textArrayLiteral([])).toBe('{}');
    expect(textArrayLiteral(null)).toBeNull();
  });

  it('turns rows into columns', () => {
    expect(
      columnsOf(
        [
          { a: 1, b: 'x' },
          { a: 2, b: 'y' },
        ],
        (r) => [r.a, r.b],
      ),
    ).toEqual([
      [1, 2],
      ['x', 'y'],
    ]);
  });
});
