import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { GroupIndex } from './group-index.js';

describe('GroupIndex', () => {
  it('given equal and different rows, when added, then each distinct row is one group with the summed weight, in first-met order', () => {
    const g = new GroupIndex(3);
    g.add(2, 10, 30);
    g.add(0, 0, 30);
    g.add(2, 10, 30, 0, 2.5);
    g.add(2, 10, 31);
    expect(g.size).toBe(3);
    expect(g.weightTotal).toBe(5.5);
    expect(Array.from(g.column(0))).toEqual([2, 0, 2]);
    expect(Array.from(g.column(2))).toEqual([30, 30, 31]);
    expect(Array.from(g.weights())).toEqual([3.5, 1, 1]);
  });

  it('given fractions, -0 and large integers, then rows are equal exactly when their numbers are ===', () => {
    const g = new GroupIndex(2);
    g.add(1, 10 / 7);
    g.add(1, 10 / 7);
    g.add(1, 10 / 7 + Number.EPSILON * 2);
    g.add(0, -0);
    g.add(0, 0);
    g.add(2 ** 52, 1);
    g.add(2 ** 52 + 1, 1);
    expect(Array.from(g.weights())).toEqual([2, 1, 2, 1, 1]);
    expect(g.find(0, 0)).toBe(2);
    expect(g.find(3, 3)).toBe(-1);
  });

  it('given more groups than its first room, then it grows and finds every one again', () => {
    const g = new GroupIndex(4, 16);
    for (let i = 0; i < 10_000; i++) g.add(i % 97, i % 89, i, 1);
    expect(g.size).toBe(10_000);
    for (let i = 0; i < 10_000; i += 1_013) expect(g.find(i % 97, i % 89, i, 1)).toBe(i);
    expect(g.find(0, 0, 0, 2)).toBe(-1);
  });

  it('when cleared, then it holds nothing and groups again from zero', () => {
    const g = new GroupIndex(1);
    g.add(5);
    g.add(6);
    g.clear();
    expect([g.size, g.weightTotal, g.find(5)]).toEqual([0, 0, -1]);
    expect(g.add(6)).toBe(0);
  });

  it('given a dimension it does not have, then column throws', () => {
    expect(() => new GroupIndex(2).column(2)).toThrow(RangeError);
  });

  it('property: the groups and weights are those of a Map keyed by the rows’ text', () => {
    const value = fc.oneof(fc.integer({ min: 0, max: 20 }), fc.double({ noNaN: true, min: -5, max: 5 }));
    fc.assert(
      fc.property(
        fc.array(fc.tuple(value, value, value, fc.integer({ min: 1, max: 3 })), { maxLength: 300 }),
        (rows) => {
          const g = new GroupIndex(3, 16);
          const byText = new Map<string, number>();
          for (const [a, b, c, w] of rows) {
            g.add(a, b, c, 0, w);
            // Object.is aside, === treats -0 as 0: so does the text key.
            const key = [a, b, c].map((v) => String(v + 0)).join('|');
            byText.set(key, (byText.get(key) ?? 0) + w);
          }
          expect(g.size).toBe(byText.size);
          expect(Array.from(g.weights())).toEqual([...byText.values()]);
        },
      ),
    );
  });
});
