import { describe, expect, it } from 'vitest';
import { backoffDelay, retry } from './backoff.js';
import { PermanentError, TransientError } from './classify.js';

describe('backoffDelay (exponential, full jitter)', () => {
  it('draws uniformly below a ceiling that doubles from baseMs up to maxMs', () => {
    const top = () => 0.999999;
    expect(
      [0, 1, 2, 3, 4, 5, 6, 10, 40].map((a) => backoffDelay(a, { baseMs: 100, maxMs: 3_000 }, top)),
    ).toEqual([99, 199, 399, 799, 1599, 2999, 2999, 2999, 2999]);
    expect(backoffDelay(5, { baseMs: 100, maxMs: 3_000 }, () => 0)).toBe(0);
    expect(backoffDelay(3, { baseMs: 100, maxMs: 3_000 }, () => 0.5)).toBe(400);
  });

  it('defaults to 200 ms doubling to 10 s', () => {
    expect(backoffDelay(0, {}, () => 0.999999)).toBe(199);
    expect(backoffDelay(20, {}, () => 0.999999)).toBe(9999);
  });

  it('spreads retries: 1,000 draws of attempt 4 cover the range', () => {
    const draws = Array.from({ length: 1000 }, () => backoffDelay(4, { baseMs: 100 }));
    expect(Math.min(...draws)).toBeLessThan(200);
    expect(Math.max(...draws)).toBeGreaterThan(1400);
    expect(draws.every((d) => d >= 0 && d < 1600)).toBe(true);
  });
});

describe('retry', () => {
  const fast = { baseMs: 1, maxMs: 2 };

  it('retries retriable failures until success', async () => {
    let calls = 0;
    const retried: number[] = [];
    const value = await retry(
      () => {
        if (++calls < 4) throw new TransientError('not yet');
        return Promise.resolve('ok');
      },
      { ...fast, onRetry: (_e, n) => retried.push(n) },
    );
    expect(value).toBe('ok');
    expect(calls).toBe(4);
    expect(retried).toEqual([1, 2, 3]);
  });

  it('throws permanent failures and bugs at once', async () => {
    let calls = 0;
    await expect(
      retry(() => {
        calls++;
        throw new PermanentError('never');
      }, fast),
    ).rejects.toThrow('never');
    await expect(
      retry(() => {
        calls++;
        throw new TypeError('bug');
      }, fast),
    ).rejects.toThrow('bug');
    expect(calls).toBe(2);
  });

  it('stops after maxAttempts and when the signal aborts', async () => {
    let calls = 0;
    await expect(
      retry(
        () => {
          calls++;
          throw new TransientError('down');
        },
        { ...fast, maxAttempts: 3 },
      ),
    ).rejects.toThrow('down');
    expect(calls).toBe(3);
    const abort = new AbortController();
    setTimeout(() => abort.abort(), 30);
    await expect(
      retry(
        () => {
          throw new TransientError('still down');
        },
        { ...fast, signal: abort.signal },
      ),
    ).rejects.toThrow('still down');
  });
});
