import { afterEach, describe, expect, it, vi } from 'vitest';
import {
  NIGHTLY_CRON,
  NIGHTLY_TIMEZONE,
  scheduleNightly,
  type ScheduledJob,
  type Scheduler,
} from '../../src/nightly/nightly-schedule.js';

const ACCOUNTS = ['acct-a', 'acct-b', 'acct-c'];

/** The night's work as the tests see it: which accounts ran, and when. */
function recorder() {
  const runs: { firedAt: Date; accounts: string[] }[] = [];
  return {
    runs,
    run: (firedAt: Date) => {
      runs.push({ firedAt, accounts: [...ACCOUNTS] });
      return Promise.resolve({ accounts: ACCOUNTS.length });
    },
  };
}

describe('nightly schedule', () => {
  let job: ScheduledJob | undefined;
  afterEach(async () => {
    await job?.stop();
    job = undefined;
    vi.useRealTimers();
  });

  it('is the cron expression 0 2 * * * in UTC, exactly', () => {
    const asked: { expression: string; timezone: string }[] = [];
    const scheduler: Scheduler = {
      schedule(expression, timezone) {
        asked.push({ expression, timezone });
        return { stop: () => Promise.resolve() };
      },
    };
    job = scheduleNightly({ run: recorder().run, scheduler });
    expect(NIGHTLY_CRON).toBe('0 2 * * *');
    expect(NIGHTLY_TIMEZONE).toBe('UTC');
    expect(asked).toEqual([{ expression: '0 2 * * *', timezone: 'UTC' }]);
  });

  // The clock is injected by faking Date and the timers, which is where node-cron reads time: the
  // real production scheduler runs against it.
  it('given the real node-cron scheduler and a clock at 01:59:00 UTC, nothing runs until 02:00:00, then every account runs once', async () => {
    vi.useFakeTimers({
      now: new Date('2026-11-22T01:59:00.000Z'),
      toFake: ['Date', 'setTimeout', 'clearTimeout'],
    });
    const night = recorder();
    job = scheduleNightly({ run: night.run });

    await vi.advanceTimersByTimeAsync(59_000); // 01:59:59
    expect(new Date().toISOString()).toBe('2026-11-22T01:59:59.000Z');
    expect(night.runs).toEqual([]);

    await vi.advanceTimersByTimeAsync(1_000); // 02:00:00
    expect(night.runs).toHaveLength(1);
    expect(night.runs[0]!.firedAt.toISOString()).toBe('2026-11-22T02:00:00.000Z');
    expect(night.runs[0]!.accounts).toEqual(ACCOUNTS);

    await vi.advanceTimersByTimeAsync(23 * 3_600_000 + 59 * 60_000); // 01:59:59 the next night
    expect(night.runs).toHaveLength(1);
    await vi.advanceTimersByTimeAsync(60_000); // 02:00:59 the next night
    expect(night.runs.map((r) => r.firedAt.toISOString())).toEqual([
      '2026-11-22T02:00:00.000Z',
      '2026-11-23T02:00:00.000Z',
    ]);
  });

  it('given the process runs in another time zone, it still fires at 02:00 UTC, not 02:00 local', async () => {
    const tz = process.env.TZ;
    process.env.TZ = 'America/New_York'; // 02:00 local is 07:00 UTC in November
    try {
      vi.useFakeTimers({
        now: new Date('2026-11-22T01:00:00.000Z'),
        toFake: ['Date', 'setTimeout', 'clearTimeout'],
      });
      const night = recorder();
      job = scheduleNightly({ run: night.run });
      await vi.advanceTimersByTimeAsync(3_600_000); // 02:00 UTC
      expect(night.runs.map((r) => r.firedAt.toISOString())).toEqual(['2026-11-22T02:00:00.000Z']);
      await vi.advanceTimersByTimeAsync(5 * 3_600_000); // 07:00 UTC = 02:00 in New York
      expect(night.runs).toHaveLength(1);
    } finally {
      if (tz === undefined) delete process.env.TZ;
      else process.env.TZ = tz;
    }
  });

  it('given the event loop was blocked past 02:00 by a long recompute, the night still runs (late, not lost)', async () => {
    vi.useFakeTimers({
      now: new Date('2026-11-22T01:59:30.000Z'),
      toFake: ['Date', 'setTimeout', 'clearTimeout'],
    });
    const night = recorder();
    job = scheduleNightly({ run: night.run });
    // The wall clock jumps 15 s ahead of the timers, so the 02:00 timer fires 15 s late (at 02:00:15),
    // as when a synchronous scoring pass holds the thread. node-cron's default tolerance is 1 s.
    vi.setSystemTime(new Date('2026-11-22T01:59:45.000Z'));
    await vi.advanceTimersByTimeAsync(30_000);
    expect(new Date().toISOString()).toBe('2026-11-22T02:00:15.000Z');
    expect(night.runs.map((r) => r.firedAt.toISOString())).toEqual(['2026-11-22T02:00:00.000Z']);
  });

  it('given the night fails, it is logged and the next night still runs', async () => {
    vi.useFakeTimers({
      now: new Date('2026-11-22T01:59:59.000Z'),
      toFake: ['Date', 'setTimeout', 'clearTimeout'],
    });
    const errors: string[] = [];
    const logger = {
      debug: () => {},
      info: () => {},
      warn: () => {},
      error: (event: string) => void errors.push(event),
      child: () => logger,
    };
    let calls = 0;
    job = scheduleNightly({
      run: () => (++calls === 1 ? Promise.reject(new Error('kafka down')) : Promise.resolve()),
      logger,
    });
    await vi.advanceTimersByTimeAsync(1_000);
    expect(errors).toEqual(['nightly_failed']);
    await vi.advanceTimersByTimeAsync(86_400_000);
    expect(calls).toBe(2);
  });
});
