/** Status of a sync task (spec: "Sync task status"). */
export type SyncTaskStatus = 'queued' | 'running' | 'done' | 'failed' | 'skipped';

/** The statuses a client stops polling at: a task in one of them never moves again. */
export const FINAL_SYNC_STATUSES: readonly SyncTaskStatus[] = Object.freeze(['done', 'failed', 'skipped']);

/** Whether a task has ended (done, failed or skipped). */
export function isFinalSyncStatus(status: string): boolean {
  return (FINAL_SYNC_STATUSES as readonly string[]).includes(status);
}

/** What a worker that claimed a task knows when it is about to start it. */
export interface SyncStartFacts {
  /** The task's status now (null: the row is gone). */
  readonly status: SyncTaskStatus | null;
  /** Another task of the account runs under a live lease. */
  readonly otherRunning: boolean;
  /** Runs of this task including the one about to start. */
  readonly runs: number;
  readonly maxRuns: number;
}

/** The move a start makes. */
export type SyncStartDecision =
  | { readonly kind: 'finished' }
  | { readonly kind: 'skipped'; readonly reason: 'already_running' }
  | { readonly kind: 'failed'; readonly reason: string }
  | { readonly kind: 'run' };

/**
 * queued → running, unless the task already ended (nothing moves), another task of the account runs
 * (→ skipped `already_running`), or workers died `maxRuns` times running it (→ failed `worker_lost`:
 * a task that kills its worker must not kill every worker in turn). A task already running (its worker
 * died) is resumed.
 *
 * @example
 * decideSyncStart({ status: 'queued', otherRunning: true, runs: 1, maxRuns: 3 });
 * // { kind: 'skipped', reason: 'already_running' }
 */
export function decideSyncStart(f: SyncStartFacts): SyncStartDecision {
  if (f.status === null || isFinalSyncStatus(f.status)) return { kind: 'finished' };
  if (f.otherRunning) return { kind: 'skipped', reason: 'already_running' };
  if (f.runs > f.maxRuns)
    return {
      kind: 'failed',
      reason: `worker_lost: the recompute stopped ${f.maxRuns} times while running this task`,
    };
  return { kind: 'run' };
}

/** A stored sync task, as the status endpoint reads it. */
export interface SyncTaskRecord {
  readonly id: string;
  readonly status: SyncTaskStatus;
  readonly queuedAt: Date;
  readonly ordersAdded: number | null;
  readonly customersAdded: number | null;
  readonly durationMs: number | null;
  readonly reason: string | null;
}

/** The sync task object of the spec: counters only when done, a reason only when skipped or failed. */
export interface SyncTaskView {
  readonly task_id: string;
  readonly queued_at: string;
  readonly status: SyncTaskStatus;
  readonly orders_added?: number;
  readonly customers_added?: number;
  readonly duration_ms?: number;
  readonly reason?: string;
}

/**
 * The spec's sync task object of a stored task.
 *
 * @example
 * syncTaskView({ id, status: 'queued', queuedAt, ordersAdded: null, ... }); // no counters
 */
export function syncTaskView(t: SyncTaskRecord): SyncTaskView {
  return {
    task_id: t.id,
    queued_at: t.queuedAt.toISOString(),
    status: t.status,
    ...(t.status === 'done'
      ? {
          orders_added: t.ordersAdded ?? 0,
          customers_added: t.customersAdded ?? 0,
          duration_ms: t.durationMs ?? 0,
        }
      : {}),
    ...((t.status === 'skipped' || t.status === 'failed') && t.reason !== null ? { reason: t.reason } : {}),
  };
}
