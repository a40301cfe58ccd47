import { describe, expect, it } from 'vitest';
import { readDecimal, readInt, LineSplitter } from '../../src/scoring/copy-text.js';

describe('COPY text readers', () => {
  const buf = (s: string) => Buffer.from(s, 'latin1');
  it.each(['12.3400', '0', '-3.5', '0.0001', '1234567.8901', '99999999999999.9999'])(
    'reads %s as Number does',
    (s) => {
      expect(readDecimal(buf(s), 0, s.length)).toBe(Number(s));
    },
  );
  it('reads signed integers', () => {
    expect(readInt(buf('20412'), 0, 5)).toBe(20412);
    expect(readInt(buf('-3'), 0, 2)).toBe(-3);
  });
  it('joins lines split across chunks and refuses a stream that ends inside a line', () => {
    const lines: string[] = [];
    const split = new LineSplitter();
    const collect = (b: Buffer, s: number, e: number) => void lines.push(b.toString('utf8', s, e));
    split.push(buf('a\tb\nc'), collect);
    split.push(buf('d\ne'), collect);
    expect(lines).toEqual(['a\tb', 'cd']);
    expect(() => split.end()).toThrow('COPY stream ended inside a line');
  });
});
