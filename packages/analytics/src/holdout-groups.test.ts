/** HoldoutGroups: calibration/holdout histories gathered one customer at a time (the streamed recompute). */
import { describe, expect, it } from 'vitest';
import { groupHoldout, HoldoutGroups } from './holdout-split.js';

describe('HoldoutGroups', () => {
  it('given customers added one by one, then equal (x, t_x, T, x*) share one weighted row, and the histories are groupHoldout’s', () => {
    const rows = [
      { x: 0, tx: 0, T: 10, xStar: 0 },
      { x: 2, tx: 5, T: 10, xStar: 1 },
      { x: 0, tx: 0, T: 10, xStar: 0 },
      { x: 2, tx: 5, T: 10, xStar: 0 },
      { x: 0, tx: 0, T: 10, xStar: 0 },
    ];
    const groups = new HoldoutGroups();
    for (const r of rows) groups.add(r.x, r.tx, r.T, r.xStar);

    const h = groups.histories(4);
    expect(groups.customers).toBe(5);
    expect(Array.from(h.weight)).toEqual([3, 1, 1]);
    expect(Array.from(h.holdoutPurchases)).toEqual([0, 1, 0]);
    expect(h).toEqual(groupHoldout(rows, 4));
  });

  it('given a negative or fractional holdout count, then a RangeError', () => {
    const groups = new HoldoutGroups();
    expect(() => groups.add(1, 1, 2, -1)).toThrow(RangeError);
    expect(() => groups.add(1, 1, 2, 0.5)).toThrow(RangeError);
    expect(groups.customers).toBe(0);
  });
});
