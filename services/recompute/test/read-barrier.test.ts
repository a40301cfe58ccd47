import { describe, expect, it } from 'vitest';
import { checkBarrier, projectorPassed, type ProjectorPosition } from '../src/read-barrier.js';
import { barrierRecheckMs } from '../src/task-worker.js';

const at = (offset: number) => ({ topic: 'holdfast.commerce', partition: 1, offset });
const projector = (checkpoint: number, committed = -1): ProjectorPosition => ({ checkpoint, committed });

describe('projectorPassed: the projector holds every record below the barrier', () => {
  it.each([
    ['an empty partition (barrier 0)', 0, projector(-1), true],
    ['nothing applied yet', 10, projector(-1), false],
    ['the last record below the barrier applied', 10, projector(9), true],
    ['a later record applied', 10, projector(15), true],
    ['two offsets short, the group not past them (lag or an open transaction)', 10, projector(7, 8), false],
    ['two offsets short, the group committed past them (markers)', 10, projector(7, 10), true],
    ['never checkpointed, the group committed past (all aborted or markers)', 3, projector(-1, 3), true],
  ])('%s', (_what, offset, position, passed) => {
    expect(projectorPassed(at(offset), position)).toBe(passed);
  });
});

describe('checkBarrier', () => {
  it('passes with no barrier, and says where the projector stands when it is not passed', async () => {
    const read = (p: { partition: number }) => Promise.resolve(projector(p.partition === 1 ? 3 : 50));
    expect(await checkBarrier(read, null)).toEqual({ passed: true });
    expect(await checkBarrier(read, [{ ...at(10), partition: 0 }])).toEqual({ passed: true });
    expect(await checkBarrier(read, [{ ...at(10), partition: 0 }, at(10)])).toEqual({
      passed: false,
      at: at(10),
      projector: projector(3),
    });
  });
});

describe('barrierRecheckMs', () => {
  it('re-checks after 200 ms, doubling to 5 s', () => {
    expect([1, 2, 3, 4, 5, 6, 7, 50].map(barrierRecheckMs)).toEqual([
      200, 400, 800, 1600, 3200, 5000, 5000, 5000,
    ]);
  });
});
