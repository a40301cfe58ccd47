// The stall watchdog's decisions, on a fake clock: idle-but-fetching and a long chunk are not stalls;
// a stall recreates the consumer once; a failed recreation, or a second stall soon after, gives up.
import { afterEach, beforeEach, describe, expect, it, vi } from 'vitest';
import { silentLogger } from '@holdfast/platform';
import { ConsumerHealth } from './consumer-health.js';
import { ConsumerStalledError, watchConsumer } from './consumer-watchdog.js';

const STALL = 10_000;

beforeEach(() => {
  vi.useFakeTimers();
});
afterEach(() => {
  vi.useRealTimers();
});

function given() {
  const health = new ConsumerHealth('g', STALL);
  health.onJoin();
  const recreate = vi.fn(() => Promise.resolve(health.onJoin()));
  const giveUp = vi.fn();
  const dog = watchConsumer({ health, stallMs: STALL, logger: silentLogger, recreate, giveUp });
  return { health, recreate, giveUp, dog };
}

describe('watchConsumer', () => {
  it('leaves alone a consumer that keeps fetching though it has nothing to read', async () => {
    const { health, recreate, giveUp, dog } = given();
    for (let s = 0; s < 60; s++) {
      health.onFetch();
      await vi.advanceTimersByTimeAsync(1_000);
    }
    expect(recreate).not.toHaveBeenCalled();
    expect(giveUp).not.toHaveBeenCalled();
    expect(() => health.check(120_000)).not.toThrow();
    dog.stop();
  });

  it('does not take a chunk in flight (a long merge, a retried outage) for a stall', async () => {
    const { health, recreate, dog } = given();
    health.onChunkStart();
    await vi.advanceTimersByTimeAsync(5 * STALL);
    expect(recreate).not.toHaveBeenCalled();
    expect(health.stalledMs()).toBe(0);
    dog.stop();
  });

  it('does not count a blocked event loop (a CPU-bound recompute) as the consumer stalling', async () => {
    const { health, recreate, dog } = given();
    health.onFetch();
    // The loop is blocked for 3 × the bound: no timer runs, then everything resumes.
    vi.setSystemTime(Date.now() + 3 * STALL);
    await vi.advanceTimersByTimeAsync(1_000);
    expect(recreate).not.toHaveBeenCalled();
    expect(() => health.check(120_000)).not.toThrow();
    // Still nothing fetched a bound later: now it is a stall.
    await vi.advanceTimersByTimeAsync(STALL + 1_000);
    expect(recreate).toHaveBeenCalledTimes(1);
    dog.stop();
  });

  it('recreates a consumer that stopped fetching, not ready meanwhile, and ready again after', async () => {
    const { health, recreate, giveUp, dog } = given();
    await vi.advanceTimersByTimeAsync(STALL - 1_000);
    expect(recreate).not.toHaveBeenCalled();
    await vi.advanceTimersByTimeAsync(1_500);
    expect(() => health.check(120_000)).toThrow('g: not fetching for 11 s');
    await vi.advanceTimersByTimeAsync(1_000);
    expect(recreate).toHaveBeenCalledTimes(1);
    expect(giveUp).not.toHaveBeenCalled();
    health.onFetch();
    expect(() => health.check(120_000)).not.toThrow();
    dog.stop();
  });

  it('tries the recreation again while it fails retriably (the broker still away), up meanwhile', async () => {
    const { health, recreate, giveUp, dog } = given();
    const refused = () =>
      Object.assign(new Error('connect ECONNREFUSED 127.0.0.1:9092'), { code: 'ECONNREFUSED' });
    let brokerDown = true;
    recreate.mockImplementation(() =>
      brokerDown ? Promise.reject(refused()) : Promise.resolve(health.onJoin()),
    );
    await vi.advanceTimersByTimeAsync(STALL + 30_000);
    expect(recreate.mock.calls.length).toBeGreaterThanOrEqual(5);
    expect(() => health.check(120_000)).toThrow(/not fetching/);
    brokerDown = false;
    await vi.advanceTimersByTimeAsync(6_000);
    expect(giveUp).not.toHaveBeenCalled();
    expect(() => health.check(120_000)).not.toThrow();
    dog.stop();
  });

  it('gives up when the recreation fails for a reason a retry cannot help', async () => {
    const { recreate, giveUp, dog } = given();
    recreate.mockImplementationOnce(() => Promise.reject(new TypeError('x is not a function')));
    await vi.advanceTimersByTimeAsync(STALL + 2_000);
    expect(giveUp).toHaveBeenCalledTimes(1);
    const err = giveUp.mock.calls[0]![0] as Error;
    expect(err).toBeInstanceOf(ConsumerStalledError);
    expect(err.message).toBe('g: not recreated: x is not a function');
    await vi.advanceTimersByTimeAsync(5 * STALL);
    expect(recreate).toHaveBeenCalledTimes(1);
    dog.stop();
  });

  it('gives up when the recreation does not finish within the bound', async () => {
    const { recreate, giveUp, dog } = given();
    recreate.mockImplementationOnce(() => new Promise(() => {}));
    await vi.advanceTimersByTimeAsync(2 * STALL + 2_000);
    expect(giveUp).toHaveBeenCalledTimes(1);
    expect((giveUp.mock.calls[0]![0] as Error).message).toBe('g: not recreated within 10000 ms');
    dog.stop();
  });

  it('gives up when the recreated consumer stalls again soon after', async () => {
    const { recreate, giveUp, dog } = given();
    await vi.advanceTimersByTimeAsync(STALL + 1_000);
    expect(recreate).toHaveBeenCalledTimes(1);
    await vi.advanceTimersByTimeAsync(STALL + 1_000);
    expect(recreate).toHaveBeenCalledTimes(1);
    expect((giveUp.mock.calls[0]![0] as Error).message).toBe('g: stalled again after being recreated');
    dog.stop();
  });

  it('recreates again after a long healthy stretch since the last recreation', async () => {
    const { health, recreate, giveUp, dog } = given();
    await vi.advanceTimersByTimeAsync(STALL + 1_000);
    for (let s = 0; s < 4 * STALL; s += 1_000) {
      health.onFetch();
      await vi.advanceTimersByTimeAsync(1_000);
    }
    await vi.advanceTimersByTimeAsync(STALL + 1_000);
    expect(recreate).toHaveBeenCalledTimes(2);
    expect(giveUp).not.toHaveBeenCalled();
    dog.stop();
  });

  it('given one attempt at a chunk in flight past attemptMaxMs (a hang), then it gives up; a chunk retried every few seconds for as long is not a hang', async () => {
    const health = new ConsumerHealth('g', STALL);
    health.onJoin();
    const recreate = vi.fn(() => Promise.resolve());
    const giveUp = vi.fn();
    const dog = watchConsumer({
      health,
      stallMs: STALL,
      attemptMaxMs: 30_000,
      logger: silentLogger,
      recreate,
      giveUp,
    });
    // Retried: a fresh attempt every 5 s for a minute (a database outage), then applied.
    health.onChunkStart();
    for (let s = 0; s < 12; s++) {
      health.onAttemptStart();
      await vi.advanceTimersByTimeAsync(5_000);
    }
    health.onChunkDone();
    expect(giveUp).not.toHaveBeenCalled();
    // Hung: one attempt that never returns.
    health.onChunkStart();
    health.onAttemptStart();
    await vi.advanceTimersByTimeAsync(25_000);
    expect(giveUp).not.toHaveBeenCalled();
    expect(health.attemptInFlightMs()).toBe(25_000);
    await vi.advanceTimersByTimeAsync(7_000);
    expect(giveUp).toHaveBeenCalledTimes(1);
    expect(giveUp.mock.calls[0]![0]).toBeInstanceOf(ConsumerStalledError);
    expect(recreate).not.toHaveBeenCalled();
    dog.stop();
  });
});
