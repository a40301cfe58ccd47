import { describe, expect, it } from 'vitest';
import { recordRetryDelayMs, writeRecord } from '../src/record-retry.js';

const terminated = () =>
  Object.assign(new Error('Connection terminated unexpectedly'), { code: 'ECONNRESET' });

describe('the record write of an attempt', () => {
  it('given the delays, then they double from 250 ms up to 4 s', () => {
    expect([0, 1, 2, 3, 4, 5].map(recordRetryDelayMs)).toEqual([250, 500, 1000, 2000, 4000, 4000]);
  });

  it('given a terminated connection twice, when written, then the third write records it', async () => {
    let calls = 0;
    const waits: number[] = [];
    const r = await writeRecord(
      () => (++calls < 3 ? Promise.reject(terminated()) : Promise.resolve('delivered')),
      30_000,
      (ms) => Promise.resolve(void waits.push(ms)),
    );
    expect(r).toBe('delivered');
    expect(waits).toEqual([250, 500]);
  });

  it('given a failure that is not retriable, then it is thrown at once', async () => {
    let calls = 0;
    await expect(
      writeRecord(
        () => {
          calls++;
          return Promise.reject(new Error('a bug'));
        },
        30_000,
        () => Promise.resolve(),
      ),
    ).rejects.toThrow('a bug');
    expect(calls).toBe(1);
  });

  it('given retriable failures past the bound, then the last one is thrown', async () => {
    let t = 0;
    await expect(
      writeRecord(
        () => Promise.reject(terminated()),
        1_000,
        (ms) => Promise.resolve(void (t += ms)),
        () => t,
      ),
    ).rejects.toThrow('Connection terminated unexpectedly');
    expect(t).toBe(750);
  });
});
