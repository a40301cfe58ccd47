import { isFinalSyncStatus } from '@holdfast/domain';
import type { LogPosition } from '@holdfast/contracts';
import {
  readCheckpoint,
  withTransaction,
  writeCheckpoint,
  type CheckpointKey,
  type Pool,
  type PoolClient,
} from '@holdfast/db';

/** Where the sync consumer keeps its checkpoints and the task worker its work queue (created by `migrateRecompute`). */
export const RECOMPUTE_SCHEMA = 'recompute';

/** The task a SyncRequested command refers to. */
export interface SyncTaskRef {
  readonly taskId: string;
  readonly accountId: string;
  readonly trigger: string;
  /** When the command was issued (its metadata.received_at). */
  readonly requestedAt: Date;
  /** What the read models must hold before the task scores (null: nothing to wait for). */
  readonly barrier: readonly LogPosition[] | null;
}

/** A task claimed by a worker: leased to it until it finishes, or until the lease runs out. */
export interface ClaimedTask extends SyncTaskRef {
  /** The worker's lease; every write that ends the task checks it is still this worker's. */
  readonly owner: string;
  /** How many times a worker has claimed it (barrier checks included). */
  readonly claims: number;
  /** How many runs ended in a transient failure (the backoff before the next run grows with it). */
  readonly transientFailures: number;
  /** When the consumer recorded it. */
  readonly recordedAt: Date;
}

/** What starting a claimed task decided. */
export type Start =
  | { readonly kind: 'run'; readonly startedAt: Date; readonly run: number }
  | { readonly kind: 'finished' }
  | { readonly kind: 'skipped' }
  | { readonly kind: 'failed'; readonly reason: string };

/** Counters of a done task. */
export interface TaskCounts {
  readonly ordersAdded: number;
  readonly customersAdded: number;
}

/** The account's orders and customers in the snapshot a recompute scored. */
export interface ScoredSnapshot {
  readonly orders: number;
  readonly customers: number;
}

const lockAccount = (c: PoolClient, accountId: string) =>
  c.query(`select pg_advisory_xact_lock(hashtextextended('holdfast:sync-run:' || $1, 0))`, [accountId]);

const WORK = `"${RECOMPUTE_SCHEMA}".sync_work`;

/**
 * control.sync_tasks (the task as clients see it) and recompute.sync_work (the queue the task
 * workers take it from).
 *
 * - The sync consumer only **records** a command: the task row if missing and one work row per task
 *   id (idempotent: a command delivered twice is recorded once), in the transaction that moves its
 *   checkpoint. It never runs anything, so its consumer group never waits on a recompute.
 * - A worker **claims** a work row with `for update skip locked` and a lease (renewed while it runs);
 *   a row whose lease ran out (its worker died) is claimed again. Every write that ends a task checks
 *   the lease is still the writer's, so a worker that lost its lease changes nothing.
 * - The task stays `queued` while its barrier is not passed; `running` once it scores; then `done`
 *   (counters), `failed` (reason), or `skipped` (`already_running`: another task of the account is
 *   running under a live lease).
 */
export class SyncTaskStore {
  constructor(
    private readonly pool: Pool,
    private readonly readModelSchema: string,
    /** A running task without a work row (from before the worker) blocks its account this long. */
    private readonly staleRunningMs: number,
  ) {}

  /** Skips a record that is not a command this consumer acts on. */
  async pass(key: CheckpointKey, offset: number): Promise<void> {
    await withTransaction(this.pool, async (c) => {
      if (offset > (await readCheckpoint(c, key))) await writeCheckpoint(c, key, offset);
    });
  }

  /**
   * Records a command: its task row (a command appended by another producer may have none) and its
   * work row, both idempotent on the task id, with the checkpoint. Returns whether a work row was new.
   */
  async record(key: CheckpointKey, offset: number, task: SyncTaskRef): Promise<boolean> {
    return withTransaction(this.pool, async (c) => {
      if (offset <= (await readCheckpoint(c, key))) return false;
      await c.query(
        `insert into control.sync_tasks (id, account_id, trigger, status, queued_at)
         values ($1, $2, $3, 'queued', $4) on conflict (id) do nothing`,
        [task.taskId, task.accountId, task.trigger, task.requestedAt],
      );
      const { rowCount } = await c.query(
        `insert into ${WORK} (task_id, account_id, trigger, requested_at, barrier)
         values ($1, $2, $3, $4, $5) on conflict (task_id) do nothing`,
        [
          task.taskId,
          task.accountId,
          task.trigger,
          task.requestedAt,
          task.barrier ? JSON.stringify(task.barrier) : null,
        ],
      );
      await writeCheckpoint(c, key, offset);
      return rowCount === 1;
    });
  }

  /**
   * Takes the oldest runnable work row (not finished, due, lease free or run out) for `owner` with a
   * lease of `leaseMs`, or null. Database time decides leases, so workers on several hosts agree.
   */
  async claim(owner: string, leaseMs: number): Promise<ClaimedTask | null> {
    const { rows } = await this.pool.query<{
      task_id: string;
      account_id: string;
      trigger: string;
      requested_at: Date;
      recorded_at: Date;
      barrier: LogPosition[] | null;
      claims: number;
      transient_failures: number;
    }>(
      `update ${WORK} w
          set lease_owner = $1, lease_until = now() + $2 * interval '1 millisecond', claims = w.claims + 1
        where task_id = (
          select task_id from ${WORK}
           where finished_at is null and not_before <= now() and (lease_until is null or lease_until < now())
           order by recorded_at limit 1
           for update skip locked)
        returning task_id, account_id, trigger, requested_at, recorded_at, barrier, claims, transient_failures`,
      [owner, leaseMs],
    );
    const r = rows[0];
    if (!r) return null;
    return {
      taskId: r.task_id,
      accountId: r.account_id,
      trigger: r.trigger,
      requestedAt: r.requested_at,
      recordedAt: r.recorded_at,
      barrier: r.barrier,
      claims: r.claims,
      transientFailures: r.transient_failures,
      owner,
    };
  }

  /** Extends the lease; false when it is no longer this worker's (it ran out and was taken). */
  async renew(task: ClaimedTask, leaseMs: number): Promise<boolean> {
    const { rowCount } = await this.pool.query(
      `update ${WORK} set lease_until = now() + $3 * interval '1 millisecond'
        where task_id = $1 and lease_owner = $2 and finished_at is null`,
      [task.taskId, task.owner, leaseMs],
    );
    return rowCount === 1;
  }

  /** Gives the row back to the queue, due again in `delayMs` (the barrier is not passed yet). */
  async defer(task: ClaimedTask, delayMs: number): Promise<void> {
    await this.pool.query(
      `update ${WORK} set lease_owner = null, lease_until = null,
              not_before = now() + $3 * interval '1 millisecond'
        where task_id = $1 and lease_owner = $2`,
      [task.taskId, task.owner, delayMs],
    );
  }

  /**
   * Gives a task whose run failed transiently (PostgreSQL, the broker away) back to the queue, due
   * again in `delayMs`. The run is given back too: `runs` counts workers that died running the task
   * (`worker_lost`), and a dependency outage is not the task's fault, however long it lasts.
   */
  async retryLater(task: ClaimedTask, delayMs: number): Promise<void> {
    await this.pool.query(
      `update ${WORK} set lease_owner = null, lease_until = null,
              not_before = now() + $3 * interval '1 millisecond',
              runs = greatest(runs - 1, 0), transient_failures = transient_failures + 1
        where task_id = $1 and lease_owner = $2 and finished_at is null`,
      [task.taskId, task.owner, delayMs],
    );
  }

  /**
   * queued → running, unless the task already ended (→ finished), another task of the account runs
   * under a live lease (→ skipped `already_running`), or workers died `maxRuns` times running it
   * (→ failed `worker_lost`: a task that kills its worker must not kill every worker in turn). A task
   * already `running` (its worker died, or its last run met a transient failure) is resumed with its
   * first start kept.
   */
  async start(task: ClaimedTask, now: Date, maxRuns: number): Promise<Start> {
    return withTransaction(this.pool, async (c) => {
      await lockAccount(c, task.accountId);
      if (!(await this.holds(c, task))) return { kind: 'finished' };
      const { rows } = await c.query<{ status: string; started_at: Date | null }>(
        `select status, started_at from control.sync_tasks where id = $1 and account_id = $2 for update`,
        [task.taskId, task.accountId],
      );
      const row = rows[0];
      if (!row || isFinalSyncStatus(row.status)) {
        await this.finishWork(c, task);
        return { kind: 'finished' };
      }
      const other = await c.query(
        `select 1 from control.sync_tasks t left join ${WORK} w on w.task_id = t.id
          where t.account_id = $1 and t.id <> $2 and t.status = 'running'
            and (case when w.task_id is null then t.started_at > $3
                      else w.finished_at is null and w.lease_until > now() end)
          limit 1`,
        [task.accountId, task.taskId, new Date(now.getTime() - this.staleRunningMs)],
      );
      if (other.rowCount) {
        await this.end(c, task, 'skipped', 'already_running', now);
        return { kind: 'skipped' };
      }
      const { rows: runs } = await c.query<{ runs: number }>(
        `update ${WORK} set runs = runs + 1 where task_id = $1 returning runs`,
        [task.taskId],
      );
      if ((runs[0]?.runs ?? 1) > maxRuns) {
        const reason = `worker_lost: the recompute stopped ${maxRuns} times while running this task`;
        await this.end(c, task, 'failed', reason, now);
        return { kind: 'failed', reason };
      }
      const startedAt = row.started_at ?? now;
      await c.query(`update control.sync_tasks set status = 'running', started_at = $2 where id = $1`, [
        task.taskId,
        startedAt,
      ]);
      return { kind: 'run', startedAt, run: runs[0]?.runs ?? 1 };
    });
  }

  /**
   * running → done. orders_added / customers_added are the growth of the account's orders and
   * customers since its previous done task: the counts in the snapshot the recompute scored
   * (`scored`; counted now when the recompute reports none) minus what earlier done tasks counted. So
   * the counters of an account's done tasks always sum to what was scored, and nothing is counted
   * that the scores do not include. Null when the lease was lost (another worker owns the task).
   */
  async done(
    task: ClaimedTask,
    startedAt: Date,
    now: Date,
    scored: ScoredSnapshot | null,
  ): Promise<TaskCounts | null> {
    return withTransaction(this.pool, async (c) => {
      await lockAccount(c, task.accountId);
      if (!(await this.holds(c, task))) return null;
      const counts = await this.counts(c, task.accountId, task.taskId, scored);
      await c.query(
        `update control.sync_tasks set status = 'done', orders_added = $2, customers_added = $3,
                finished_at = $4, duration_ms = $5, reason = null
          where id = $1`,
        [
          task.taskId,
          counts.ordersAdded,
          counts.customersAdded,
          now,
          Math.max(0, now.getTime() - startedAt.getTime()),
        ],
      );
      await this.finishWork(c, task);
      return counts;
    });
  }

  /** → failed, with the reason (a failed recompute, or a barrier never reached). False: lease lost. */
  async failed(task: ClaimedTask, reason: string, now: Date): Promise<boolean> {
    return withTransaction(this.pool, async (c) => {
      if (!(await this.holds(c, task))) return false;
      await this.end(c, task, 'failed', reason, now);
      return true;
    });
  }

  /** Deletes work rows finished more than `olderThanMs` ago (the task rows stay). */
  async prune(olderThanMs: number): Promise<number> {
    const { rowCount } = await this.pool.query(
      `delete from ${WORK} where finished_at < now() - $1 * interval '1 millisecond'`,
      [olderThanMs],
    );
    return rowCount ?? 0;
  }

  /** Whether `task`'s lease is still its worker's (locks the work row). */
  private async holds(c: PoolClient, task: ClaimedTask): Promise<boolean> {
    const { rowCount } = await c.query(
      `select 1 from ${WORK} where task_id = $1 and lease_owner = $2 and finished_at is null for update`,
      [task.taskId, task.owner],
    );
    return rowCount === 1;
  }

  private async end(
    c: PoolClient,
    task: ClaimedTask,
    status: 'failed' | 'skipped',
    reason: string,
    now: Date,
  ): Promise<void> {
    await c.query(
      `update control.sync_tasks set status = $2, reason = $3, finished_at = $4
        where id = $1 and status in ('queued', 'running')`,
      [task.taskId, status, reason.slice(0, 500), now],
    );
    await this.finishWork(c, task);
  }

  private async finishWork(c: PoolClient, task: ClaimedTask): Promise<void> {
    await c.query(
      `update ${WORK} set finished_at = now(), lease_owner = null, lease_until = null where task_id = $1`,
      [task.taskId],
    );
  }

  private async counts(
    c: PoolClient,
    accountId: string,
    taskId: string,
    scored: ScoredSnapshot | null,
  ): Promise<TaskCounts> {
    const s = `"${this.readModelSchema}"`;
    const { rows: exists } = await c.query<{ ok: boolean }>(
      `select to_regclass($1) is not null and to_regclass($2) is not null as ok`,
      [`${s}.orders`, `${s}.customers`],
    );
    const live = exists[0]?.ok && !scored;
    const { rows } = await c.query<{
      orders: number;
      customers: number;
      orders_before: number;
      customers_before: number;
    }>(
      `select ${live ? `(select count(*) from ${s}.orders where account_id = $1)` : '0'}::int as orders,
              ${live ? `(select count(*) from ${s}.customers where account_id = $1)` : '0'}::int as customers,
              coalesce(sum(orders_added), 0)::int as orders_before,
              coalesce(sum(customers_added), 0)::int as customers_before
         from control.sync_tasks where account_id = $1 and status = 'done' and id <> $2`,
      [accountId, taskId],
    );
    const r = rows[0]!;
    const orders = scored?.orders ?? r.orders;
    const customers = scored?.customers ?? r.customers;
    return {
      ordersAdded: Math.max(0, orders - r.orders_before),
      customersAdded: Math.max(0, customers - r.customers_before),
    };
  }
}
