import { randomUUID } from 'node:crypto';
import { hostname } from 'node:os';
import {
  backoffDelay,
  classifyError,
  DEFAULT_RETRY_BUDGET,
  describeFailure,
  nextRetryStreak,
  retryBudgetExhausted,
  retryBudgetReason,
  type RetryStreak,
  silentLogger,
  type BackoffOptions,
  type Logger,
} from '@holdfast/platform';
import { checkBarrier, type ProjectorPositionReader } from './read-barrier.js';
import type { ClaimedTask, ScoredSnapshot, SyncTaskRef, SyncTaskStore } from './sync-task-store.js';

/** How the task worker paces itself; every field has a default (`DEFAULT_WORKER_SETTINGS`). */
export interface TaskWorkerSettings {
  /** A claimed task is the worker's this long without a renewal (renewed every third of it). */
  readonly leaseMs: number;
  /** How often an idle worker looks for work recorded by other processes (ms). */
  readonly pollMs: number;
  /**
   * How long a task waits for the read models to pass its barrier, from when it was recorded; then it
   * fails with reason `read_models_behind`.
   */
  readonly barrierTimeoutMs: number;
  /** Workers that may die running one task before it fails with `worker_lost`. */
  readonly maxRuns: number;
  /**
   * Waits before running again a task whose recompute failed transiently (full jitter, growing with
   * its transient failures): as long as the failure is transient, with no bound on the number of runs.
   */
  readonly retryBackoff: BackoffOptions;
  /**
   * Identical transient failures of a task's own in a row (a statement that always exceeds its
   * timeout: `countsAgainstRetryBudget`) before it fails `retries_exhausted` (HOLDFAST_RETRY_BUDGET).
   * Outages never count: a task waits them out.
   */
  readonly retryBudget: number;
}

export const DEFAULT_WORKER_SETTINGS: TaskWorkerSettings = Object.freeze({
  leaseMs: 60_000,
  pollMs: 1_000,
  barrierTimeoutMs: 1_800_000,
  maxRuns: 3,
  retryBackoff: Object.freeze({ baseMs: 2_000, maxMs: 60_000 }),
  retryBudget: DEFAULT_RETRY_BUDGET,
});

/** The recompute of one task; may report the snapshot it scored (the task's counters come from it). */
export type RecomputeTask = (task: SyncTaskRef) => Promise<ScoredSnapshot | void>;

export interface TaskWorkerDeps {
  readonly store: SyncTaskStore;
  readonly barrier: ProjectorPositionReader;
  readonly recompute: RecomputeTask;
  readonly logger?: Logger;
  readonly now?: () => Date;
  /** Called each time a task used up its retry budget (`holdfast_retry_budget_exhausted_total`). */
  readonly onRetryBudgetExhausted?: () => void;
}

export interface RunningWorker {
  /** Looks for work now (the consumer calls it after recording a command). */
  wake(): void;
  /**
   * Stops claiming; resolves when the task in hand (if any) has ended, or after `graceMs` (default
   * 10 s): a recompute is not cut short, and if the process ends meanwhile its lease runs out and
   * another worker (or this one, restarted) runs the task again.
   */
  stop(graceMs?: number): Promise<void>;
}

/**
 * Whether a recompute failed for a reason that may pass by itself: the shared taxonomy's verdict
 * (`classifyError(err) === 'retriable'`: a lost or refused PostgreSQL connection, too many connections,
 * a network error, an error that says so). Such a task is run again later instead of failing.
 */
export function isTransient(err: unknown): boolean {
  return classifyError(err) === 'retriable';
}

/** Delay before re-checking a barrier that was not passed: 200 ms doubling to 5 s. */
export function barrierRecheckMs(claims: number): number {
  return Math.min(5_000, 200 * 2 ** Math.min(Math.max(claims - 1, 0), 10));
}

interface Signal {
  wake?: () => void;
  /** A wake-up that came while the worker was busy: the next sleep returns at once. */
  kicked: boolean;
}

const sleep = (ms: number, signal: Signal) =>
  new Promise<void>((resolve) => {
    if (signal.kicked) {
      signal.kicked = false;
      resolve();
      return;
    }
    const t = setTimeout(() => {
      signal.wake = undefined;
      resolve();
    }, ms);
    signal.wake = () => {
      clearTimeout(t);
      signal.wake = undefined;
      resolve();
    };
  });

/**
 * Runs sync tasks outside the consumer: claims the oldest runnable task (`SyncTaskStore.claim`),
 * waits for its barrier (the task stays queued and is re-checked with backoff; after
 * `barrierTimeoutMs` it fails with `read_models_behind`), then runs the recompute while renewing its
 * lease, and records done (counters from the scored snapshot) or failed. A recompute that fails on a
 * transient error (`isTransient`) is run again with backoff (`retryBackoff`) for as long as the
 * failure lasts (it does not count as a run: `maxRuns` bounds only workers that died running it),
 * unless it is the same failure of the task's own `retryBudget` times in a row (a statement that
 * always times out): then the task fails `retries_exhausted: …`; any other error fails the task. A failure of the database or the broker in the loop itself is logged and retried
 * with backoff: the loop never ends by itself.
 *
 * One task at a time per worker: a recompute holds the account's data in memory. More throughput is
 * more recompute processes; they share the queue.
 *
 * @example
 * const worker = startTaskWorker(DEFAULT_WORKER_SETTINGS, { store, barrier, recompute, logger });
 * await worker.stop();
 */
export function startTaskWorker(settings: TaskWorkerSettings, deps: TaskWorkerDeps): RunningWorker {
  const logger = deps.logger ?? silentLogger;
  const now = deps.now ?? (() => new Date());
  const owner = `${hostname()}:${process.pid}:${randomUUID().slice(0, 8)}`;
  const signal: Signal = { kicked: false };
  let stopping = false;
  let errors = 0;
  let lastPrune = 0;
  // Per task, in this worker: the identical failures in a row (another worker counts its own; each
  // is bounded). Dropped when the task ends.
  const streaks = new Map<string, RetryStreak>();

  const runOne = async (task: ClaimedTask): Promise<void> => {
    const state = await checkBarrier(deps.barrier, task.barrier);
    if (!state.passed) {
      const waited = Date.now() - task.recordedAt.getTime();
      if (waited >= settings.barrierTimeoutMs) {
        const reason =
          `read_models_behind: the projector had not applied ${state.at.topic}[${state.at.partition}] ` +
          `below offset ${state.at.offset} after ${Math.round(waited / 1000)} s ` +
          `(checkpoint ${state.projector.checkpoint}, committed ${state.projector.committed})`;
        if (await deps.store.failed(task, reason, now()))
          logger.error('sync_task_failed', { task_id: task.taskId, reason });
        return;
      }
      const delay = barrierRecheckMs(task.claims);
      if (task.claims === 1)
        logger.info('sync_task_waiting_for_read_models', {
          task_id: task.taskId,
          topic: state.at.topic,
          partition: state.at.partition,
          barrier: state.at.offset,
          checkpoint: state.projector.checkpoint,
        });
      await deps.store.defer(task, delay);
      return;
    }
    const start = await deps.store.start(task, now(), settings.maxRuns);
    if (start.kind === 'skipped')
      logger.info('sync_task_skipped', { task_id: task.taskId, reason: 'already_running' });
    if (start.kind === 'failed')
      logger.error('sync_task_failed', { task_id: task.taskId, reason: start.reason });
    if (start.kind !== 'run') return;
    logger.info('sync_task_running', { task_id: task.taskId, account_id: task.accountId });
    let lost = false;
    const beat = setInterval(
      () =>
        void deps.store.renew(task, settings.leaseMs).then(
          (held) => {
            if (!held && !lost) {
              lost = true;
              logger.warn('sync_task_lease_lost', { task_id: task.taskId });
            }
          },
          (err: Error) => logger.warn('sync_task_lease_renew_failed', { error: err.message }),
        ),
      Math.max(100, Math.floor(settings.leaseMs / 3)),
    );
    let scored: ScoredSnapshot | null = null;
    try {
      scored = (await deps.recompute(task)) ?? null;
    } catch (err) {
      clearInterval(beat);
      const streak = nextRetryStreak(streaks.get(task.taskId) ?? null, err);
      if (streak) streaks.set(task.taskId, streak);
      else streaks.delete(task.taskId);
      if (retryBudgetExhausted(streak, settings.retryBudget)) {
        // The same failure of its own every time: waiting will not make it pass.
        streaks.delete(task.taskId);
        const reason = retryBudgetReason(streak!);
        deps.onRetryBudgetExhausted?.();
        logger.error('retry_budget_exhausted', {
          component: 'recompute.task-worker',
          task_id: task.taskId,
          reason,
        });
        if (await finish(() => deps.store.failed(task, reason, now())))
          logger.error('sync_task_failed', { task_id: task.taskId, reason });
        return;
      }
      if (isTransient(err)) {
        // A dependency away, not the task's fault: run it again once things are back, however long.
        const delay = backoffDelay(task.transientFailures, settings.retryBackoff);
        logger.warn('sync_task_retrying', {
          task_id: task.taskId,
          transient_failures: task.transientFailures + 1,
          retry_in_ms: delay,
          ...describeFailure(err),
        });
        await finish(() => deps.store.retryLater(task, delay));
        return;
      }
      const reason = `recompute_failed: ${(err as Error).message}`;
      if (await finish(() => deps.store.failed(task, reason, now())))
        logger.error('sync_task_failed', { task_id: task.taskId, reason });
      return;
    }
    clearInterval(beat);
    streaks.delete(task.taskId);
    const counts = await finish(() => deps.store.done(task, start.startedAt, now(), scored));
    if (counts) logger.info('sync_task_done', { task_id: task.taskId, ...counts });
    else logger.warn('sync_task_lease_lost', { task_id: task.taskId, at: 'done' });
  };

  // The outcome of a run: a database outage must not throw it away (nor count as a worker lost: an
  // unwritten retry would leave the run counted). Retried while the failure is transient and the
  // worker runs; if it never lands, the lease runs out and another worker runs the task again (a
  // recompute is idempotent).
  const finish = async <T>(write: () => Promise<T>): Promise<T> => {
    for (let attempt = 1; ; attempt++) {
      try {
        return await write();
      } catch (err) {
        if (stopping || !isTransient(err)) throw err;
        const delay = Math.min(10_000, 500 * attempt);
        logger.warn('sync_task_write_retry', { attempt, retry_in_ms: delay, ...describeFailure(err) });
        await new Promise((r) => setTimeout(r, delay));
      }
    }
  };

  const loop = async (): Promise<void> => {
    while (!stopping) {
      try {
        const task = await deps.store.claim(owner, settings.leaseMs);
        if (task) {
          await runOne(task);
          errors = 0;
          continue;
        }
        errors = 0;
        if (Date.now() - lastPrune > 3_600_000) {
          lastPrune = Date.now();
          await deps.store.prune(30 * 86_400_000);
        }
        await sleep(settings.pollMs, signal);
      } catch (err) {
        errors++;
        const delay = Math.min(30_000, 500 * 2 ** Math.min(errors - 1, 6));
        logger.error('sync_worker_error', { error: (err as Error).message, retry_in_ms: delay });
        await sleep(delay, signal);
      }
    }
  };
  const done = loop();

  return {
    wake: () => {
      if (signal.wake) signal.wake();
      else signal.kicked = true;
    },
    stop: async (graceMs = 10_000) => {
      stopping = true;
      signal.wake?.();
      let timer: NodeJS.Timeout | undefined;
      await Promise.race([done, new Promise<void>((r) => (timer = setTimeout(r, graceMs)))]);
      clearTimeout(timer);
    },
  };
}
