import { describe, expect, it } from 'vitest';
import { SeekGuard } from '../../src/runtime/seek-guard.js';

describe('SeekGuard', () => {
  it('applies a batch that starts right after the checkpoint', () => {
    expect(new SeekGuard().check(0, 9, 10)).toBeUndefined();
  });

  it('treats a gap after its own write as transaction markers', () => {
    const g = new SeekGuard();
    g.committed(0, 9);
    expect(g.check(0, 9, 11)).toBeUndefined();
  });

  it('rewinds once when the checkpoint moved without it (a schema switch), then accepts what follows', () => {
    const g = new SeekGuard();
    g.committed(0, 500);
    expect(g.check(0, 120, 501)).toBe(121);
    expect(g.check(0, 120, 122)).toBeUndefined();
  });

  it('rewinds again when a stale prefetched batch arrives after the rewind', () => {
    const g = new SeekGuard();
    expect(g.check(0, 120, 501)).toBe(121);
    expect(g.check(0, 120, 900)).toBe(121);
    expect(g.check(0, 120, 501)).toBeUndefined();
  });

  describe('the idle watch (reconcile)', () => {
    it('given a checkpoint switched behind what it wrote, when reconciled, then it rewinds once to checkpoint + 1', () => {
      const g = new SeekGuard(5_000);
      g.committed(0, 500);
      g.committed(1, 80);
      expect(
        g.reconcile(
          new Map([
            [0, 120],
            [1, 80],
          ]),
          0,
        ),
      ).toEqual([{ partition: 0, offset: 121 }]);
      expect(
        g.reconcile(
          new Map([
            [0, 120],
            [1, 80],
          ]),
          1_000,
        ),
      ).toEqual([]);
    });

    it('given a rewind that no batch served (the seek was lost), when the re-ask time passes, then it asks again', () => {
      const g = new SeekGuard(5_000);
      g.committed(0, 500);
      g.reconcile(new Map([[0, 120]]), 0);
      expect(g.reconcile(new Map([[0, 120]]), 4_999)).toEqual([]);
      expect(g.reconcile(new Map([[0, 120]]), 5_000)).toEqual([{ partition: 0, offset: 121 }]);
      expect(g.reconcile(new Map([[0, 120]]), 6_000)).toEqual([]);
      expect(g.reconcile(new Map([[0, 120]]), 10_000)).toEqual([{ partition: 0, offset: 121 }]);
    });

    it('given a rewind served by a committed chunk, when reconciled later, then it asks nothing', () => {
      const g = new SeekGuard(5_000);
      g.committed(0, 500);
      g.reconcile(new Map([[0, 120]]), 0);
      g.committed(0, 300);
      expect(g.reconcile(new Map([[0, 300]]), 20_000)).toEqual([]);
    });

    it('given the checkpoint moved on by another writer, when reconciled, then the rewind is dropped', () => {
      const g = new SeekGuard(5_000);
      g.committed(0, 500);
      g.reconcile(new Map([[0, 120]]), 0);
      expect(g.reconcile(new Map([[0, 500]]), 20_000)).toEqual([]);
      expect(g.reconcile(new Map([[0, 120]]), 40_000)).toEqual([]);
    });
  });
});
