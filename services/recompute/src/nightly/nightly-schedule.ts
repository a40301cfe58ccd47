import cron from 'node-cron';
import { silentLogger, type Logger } from '@holdfast/platform';

/** Every night at 02:00 (spec, general rule 7)… */
export const NIGHTLY_CRON = '0 2 * * *';
/** …in UTC, whatever the machine's time zone. */
export const NIGHTLY_TIMEZONE = 'UTC';

const MISSED_TOLERANCE_MS = 3_600_000;

/** A scheduled job that can be stopped. */
export interface ScheduledJob {
  stop(): Promise<void>;
}

/**
 * The scheduling port. Production uses {@link nodeCronScheduler}; node-cron reads the clock through
 * `Date` and `setTimeout`, so a test injects its clock by faking those (vitest fake timers) and drives
 * the real schedule, or passes a scheduler of its own that records what was asked.
 */
export interface Scheduler {
  /** Runs `job` at every time matching `expression` in `timezone`, with the matching time. */
  schedule(expression: string, timezone: string, job: (firedAt: Date) => Promise<void>): ScheduledJob;
}

/**
 * node-cron (v4): one in-process task; `noOverlap` skips a firing while the previous run is still
 * going. node-cron counts a firing as missed when its timer fires more than a second late, which a
 * recompute scoring a large account in this same process (blocking the event loop for seconds) would
 * cause at 02:00: the tolerance is raised to an hour so that the night is late, never lost.
 */
export const nodeCronScheduler: Scheduler = {
  schedule(expression, timezone, job) {
    const task = cron.schedule(expression, (ctx) => job(ctx.date), {
      timezone,
      name: 'holdfast-nightly-recompute',
      noOverlap: true,
      missedExecutionTolerance: MISSED_TOLERANCE_MS,
    });
    return {
      stop: async () => {
        await task.destroy();
      },
    };
  },
};

export interface NightlyDeps {
  /** The night's work: queue a recompute of every account (see `enqueueNightly`). */
  readonly run: (firedAt: Date) => Promise<unknown>;
  readonly scheduler?: Scheduler;
  readonly logger?: Logger;
}

/**
 * Schedules the nightly recompute at 02:00 UTC. A failed night is logged and the schedule keeps going:
 * the next night recomputes everything anyway.
 *
 * @example
 * const nightly = scheduleNightly({ run: (at) => enqueueNightly(deps, at), logger });
 * await nightly.stop();
 */
export function scheduleNightly(deps: NightlyDeps): ScheduledJob {
  const logger = deps.logger ?? silentLogger;
  const scheduler = deps.scheduler ?? nodeCronScheduler;
  return scheduler.schedule(NIGHTLY_CRON, NIGHTLY_TIMEZONE, async (firedAt) => {
    logger.info('nightly_started', { fired_at: firedAt.toISOString() });
    try {
      const outcome = await deps.run(firedAt);
      logger.info('nightly_queued', { fired_at: firedAt.toISOString(), outcome });
    } catch (err) {
      logger.error('nightly_failed', { fired_at: firedAt.toISOString(), error: (err as Error).message });
    }
  });
}
