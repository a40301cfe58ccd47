import { describe, expect, it } from 'vitest';
import { admitClaimed, saturatedSubscriptions } from '../src/send-pool.js';

const d = (id: string, subscriptionId: string) => ({ id, subscriptionId });

describe('admitClaimed', () => {
  it('given one subscription with more claimed than its cap, then the excess is released, others start', () => {
    const claimed = [d('a1', 'A'), d('a2', 'A'), d('a3', 'A'), d('b1', 'B'), d('a4', 'A')];
    const r = admitClaimed(claimed, new Map(), 2);
    expect(r.start.map((x) => x.id)).toEqual(['a1', 'a2', 'b1']);
    expect(r.release.map((x) => x.id)).toEqual(['a3', 'a4']);
  });

  it('given deliveries already in flight, then they count against the cap', () => {
    const claimed = [d('a1', 'A'), d('b1', 'B'), d('b2', 'B')];
    const r = admitClaimed(
      claimed,
      new Map([
        ['A', 2],
        ['B', 1],
      ]),
      2,
    );
    expect(r.start.map((x) => x.id)).toEqual(['b1']);
    expect(r.release.map((x) => x.id)).toEqual(['a1', 'b2']);
  });

  it('given nothing claimed, then nothing starts', () => {
    expect(admitClaimed([], new Map([['A', 5]]), 1)).toEqual({ start: [], release: [] });
  });
});

describe('saturatedSubscriptions', () => {
  it('given in-flight counts, then those at or over the cap are excluded from the next claim', () => {
    expect(
      saturatedSubscriptions(
        new Map([
          ['A', 4],
          ['B', 3],
          ['C', 5],
        ]),
        4,
      ),
    ).toEqual(['A', 'C']);
  });
});
