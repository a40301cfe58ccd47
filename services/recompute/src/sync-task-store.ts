import { decideSyncStart, syncCompleted, type Occurrence } from '@holdfast/domain';
import type { LogPosition } from '@holdfast/contracts';
import { sql, type Kysely } from 'kysely';
import {
  rawQuery,
  readCheckpoint,
  type Database,
  withTransaction,
  writeCheckpoint,
  type CheckpointKey,
  type Pool,
  type PoolClient,
} from '@holdfast/postgres';
import { recordOutboundEvents } from '@holdfast/webhook-deliveries';
import { recomputeDb, recomputeDbOn, type RecomputeDatabase } from './recompute-database.js';

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
  rawQuery(
    c,
    'sync-task-store.lock-account',
    `select pg_advisory_xact_lock(hashtextextended('holdfast:sync-run:' || $1, 0))`,
    [accountId],
  );

/** `now()` plus `ms` milliseconds, in database time. */
const msFromNow = (ms: number) => sql<Date>`now() + ${ms} * interval '1 millisecond'`;

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
  private readonly db: Kysely<RecomputeDatabase>;

  constructor(
    private readonly pool: Pool,
    private readonly readModelSchema: string,
    /** A running task without a work row (from before the worker) blocks its account this long. */
    private readonly staleRunningMs: number,
  ) {
    this.db = recomputeDb(pool);
  }

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
      const db = recomputeDbOn(c);
      await db
        .insertInto('control.sync_tasks')
        .values({
          id: task.taskId,
          account_id: task.accountId,
          trigger: task.trigger,
          status: 'queued',
          queued_at: task.requestedAt,
        })
        .onConflict((oc) => oc.column('id').doNothing())
        .execute();
      const inserted = await db
        .insertInto('recompute.sync_work')
        .values({
          task_id: task.taskId,
          account_id: task.accountId,
          trigger: task.trigger,
          requested_at: task.requestedAt,
          barrier: task.barrier ? JSON.stringify(task.barrier) : null,
        })
        .onConflict((oc) => oc.column('task_id').doNothing())
        .executeTakeFirst();
      await writeCheckpoint(c, key, offset);
      return inserted.numInsertedOrUpdatedRows === 1n;
    });
  }

  /**
   * Takes the oldest runnable work row (not finished, due, lease free or run out) for `owner` with a
   * lease of `leaseMs`, or null. Database time decides leases, so workers on several hosts agree.
   */
  async claim(owner: string, leaseMs: number): Promise<ClaimedTask | null> {
    const r = await this.db
      .updateTable('recompute.sync_work as w')
      .set((eb) => ({ lease_owner: owner, lease_until: msFromNow(leaseMs), claims: eb('w.claims', '+', 1) }))
      .where('w.task_id', '=', (eb) =>
        eb
          .selectFrom('recompute.sync_work')
          .select('task_id')
          .where('finished_at', 'is', null)
          .where('not_before', '<=', sql<Date>`now()`)
          .where((eb) => eb.or([eb('lease_until', 'is', null), eb('lease_until', '<', sql<Date>`now()`)]))
          .orderBy('recorded_at')
          .limit(1)
          .forUpdate()
          .skipLocked(),
      )
      .returning([
        'task_id',
        'account_id',
        'trigger',
        'requested_at',
        'recorded_at',
        'barrier',
        'claims',
        'transient_failures',
      ])
      .executeTakeFirst();
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
    const r = await this.db
      .updateTable('recompute.sync_work')
      .set({ lease_until: msFromNow(leaseMs) })
      .where('task_id', '=', task.taskId)
      .where('lease_owner', '=', task.owner)
      .where('finished_at', 'is', null)
      .executeTakeFirst();
    return r.numUpdatedRows === 1n;
  }

  /** Gives the row back to the queue, due again in `delayMs` (the barrier is not passed yet). */
  async defer(task: ClaimedTask, delayMs: number): Promise<void> {
    await this.db
      .updateTable('recompute.sync_work')
      .set({ lease_owner: null, lease_until: null, not_before: msFromNow(delayMs) })
      .where('task_id', '=', task.taskId)
      .where('lease_owner', '=', task.owner)
      .execute();
  }

  /**
   * Gives a task whose run failed transiently (PostgreSQL, the broker away) back to the queue, due
   * again in `delayMs`. The run is given back too: `runs` counts workers that died running the task
   * (`worker_lost`), and a dependency outage is not the task's fault, however long it lasts.
   */
  async retryLater(task: ClaimedTask, delayMs: number): Promise<void> {
    await this.db
      .updateTable('recompute.sync_work')
      .set((eb) => ({
        lease_owner: null,
        lease_until: null,
        not_before: msFromNow(delayMs),
        runs: eb.fn<number>('greatest', [eb('runs', '-', 1), eb.lit(0)]),
        transient_failures: eb('transient_failures', '+', 1),
      }))
      .where('task_id', '=', task.taskId)
      .where('lease_owner', '=', task.owner)
      .where('finished_at', 'is', null)
      .execute();
  }

  /**
   * Starts a claimed task: loads what `decideSyncStart` (the rule: queued → running, finished,
   * skipped `already_running` or failed `worker_lost`) needs, under the account's lock, and carries
   * its decision out. A task already `running` (its worker died, or its last run met a transient
   * failure) is resumed with its first start kept.
   */
  async start(task: ClaimedTask, now: Date, maxRuns: number): Promise<Start> {
    return withTransaction(this.pool, async (c) => {
      await lockAccount(c, task.accountId);
      const db = recomputeDbOn(c);
      const work = await this.held(db, task);
      if (!work) return { kind: 'finished' };
      const row = await db
        .selectFrom('control.sync_tasks')
        .select(['status', 'started_at'])
        .where('id', '=', task.taskId)
        .where('account_id', '=', task.accountId)
        .forUpdate()
        .executeTakeFirst();
      const otherRunning = row ? await this.otherRunning(db, task, now) : false;
      const run = work.runs + 1;
      const decision = decideSyncStart({
        status: row?.status ?? null,
        otherRunning,
        runs: run,
        maxRuns,
      });
      switch (decision.kind) {
        case 'finished':
          await this.finishWork(db, task);
          return { kind: 'finished' };
        case 'skipped':
          await this.end(db, task, 'skipped', decision.reason, now);
          return { kind: 'skipped' };
        case 'failed':
          await this.end(db, task, 'failed', decision.reason, now);
          return { kind: 'failed', reason: decision.reason };
        case 'run': {
          await db
            .updateTable('recompute.sync_work')
            .set({ runs: run })
            .where('task_id', '=', task.taskId)
            .execute();
          const startedAt = row?.started_at ?? now;
          await db
            .updateTable('control.sync_tasks')
            .set({ status: 'running', started_at: startedAt })
            .where('id', '=', task.taskId)
            .execute();
          return { kind: 'run', startedAt, run };
        }
      }
    });
  }

  /**
   * Whether another task of the account runs under a live lease (a running task without a work row,
   * from before the worker, counts while it started less than `staleRunningMs` ago).
   */
  private async otherRunning(db: Kysely<RecomputeDatabase>, task: ClaimedTask, now: Date): Promise<boolean> {
    const other = await db
      .selectFrom('control.sync_tasks as t')
      .leftJoin('recompute.sync_work as w', 'w.task_id', 't.id')
      .select(sql<number>`1`.as('one'))
      .where('t.account_id', '=', task.accountId)
      .where('t.id', '<>', task.taskId)
      .where('t.status', '=', 'running')
      .where((eb) =>
        eb
          .case()
          .when('w.task_id', 'is', null)
          .then(eb('t.started_at', '>', new Date(now.getTime() - this.staleRunningMs)))
          .else(eb.and([eb('w.finished_at', 'is', null), eb('w.lease_until', '>', sql<Date>`now()`)]))
          .end(),
      )
      .limit(1)
      .executeTakeFirst();
    return other !== undefined;
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
      const db = recomputeDbOn(c);
      if (!(await this.holds(db, task))) return null;
      const counts = await this.counts(db, task.accountId, task.taskId, scored);
      await db
        .updateTable('control.sync_tasks')
        .set({
          status: 'done',
          orders_added: counts.ordersAdded,
          customers_added: counts.customersAdded,
          finished_at: now,
          duration_ms: Math.max(0, now.getTime() - startedAt.getTime()),
          reason: null,
        })
        .where('id', '=', task.taskId)
        .execute();
      await this.finishWork(db, task);
      await announce(db, task, now, {
        taskId: task.taskId,
        status: 'done',
        ordersAdded: counts.ordersAdded,
        customersAdded: counts.customersAdded,
        durationMs: Math.max(0, now.getTime() - startedAt.getTime()),
        reason: null,
        finishedAt: now,
      });
      return counts;
    });
  }

  /** → failed, with the reason (a failed recompute, or a barrier never reached). False: lease lost. */
  async failed(task: ClaimedTask, reason: string, now: Date): Promise<boolean> {
    return withTransaction(this.pool, async (c) => {
      const db = recomputeDbOn(c);
      if (!(await this.holds(db, task))) return false;
      await this.end(db, task, 'failed', reason, now);
      return true;
    });
  }

  /** Deletes work rows finished more than `olderThanMs` ago (the task rows stay). */
  async prune(olderThanMs: number): Promise<number> {
    const r = await this.db
      .deleteFrom('recompute.sync_work')
      .where('finished_at', '<', sql<Date>`now() - ${olderThanMs} * interval '1 millisecond'`)
      .executeTakeFirst();
    return Number(r.numDeletedRows);
  }

  /** `task`'s work row (its runs so far) while its lease is still its worker's (locks it), or null. */
  private async held(db: Kysely<RecomputeDatabase>, task: ClaimedTask): Promise<{ runs: number } | null> {
    const row = await db
      .selectFrom('recompute.sync_work')
      .select('runs')
      .where('task_id', '=', task.taskId)
      .where('lease_owner', '=', task.owner)
      .where('finished_at', 'is', null)
      .forUpdate()
      .executeTakeFirst();
    return row ?? null;
  }

  /** Whether `task`'s lease is still its worker's (locks the work row). */
  private async holds(db: Kysely<RecomputeDatabase>, task: ClaimedTask): Promise<boolean> {
    const row = await db
      .selectFrom('recompute.sync_work')
      .select('task_id')
      .where('task_id', '=', task.taskId)
      .where('lease_owner', '=', task.owner)
      .where('finished_at', 'is', null)
      .forUpdate()
      .executeTakeFirst();
    return row !== undefined;
  }

  private async end(
    db: Kysely<RecomputeDatabase>,
    task: ClaimedTask,
    status: 'failed' | 'skipped',
    reason: string,
    now: Date,
  ): Promise<void> {
    const ended = await db
      .updateTable('control.sync_tasks')
      .set({ status, reason: reason.slice(0, 500), finished_at: now })
      .where('id', '=', task.taskId)
      .where('status', 'in', ['queued', 'running'])
      .executeTakeFirst();
    await this.finishWork(db, task);
    if (ended.numUpdatedRows)
      await announce(db, task, now, {
        taskId: task.taskId,
        status,
        ordersAdded: null,
        customersAdded: null,
        durationMs: null,
        reason: reason.slice(0, 500),
        finishedAt: now,
      });
  }

  private async finishWork(db: Kysely<RecomputeDatabase>, task: ClaimedTask): Promise<void> {
    await db
      .updateTable('recompute.sync_work')
      .set({ finished_at: sql<Date>`now()`, lease_owner: null, lease_until: null })
      .where('task_id', '=', task.taskId)
      .execute();
  }

  private async counts(
    db: Kysely<RecomputeDatabase>,
    accountId: string,
    taskId: string,
    scored: ScoredSnapshot | null,
  ): Promise<TaskCounts> {
    const s = `"${this.readModelSchema}"`;
    const exists = await db
      .selectNoFrom(
        sql<boolean>`to_regclass(${`${s}.orders`}) is not null and to_regclass(${`${s}.customers`}) is not null`.as(
          'ok',
        ),
      )
      .executeTakeFirst();
    const live = exists?.ok && !scored;
    const rm = db.withSchema(this.readModelSchema);
    const r = await rm
      .selectFrom('control.sync_tasks')
      .select((eb) => [
        eb
          .cast<number>(
            live
              ? eb.selectFrom('orders').select(eb.fn.countAll().as('n')).where('account_id', '=', accountId)
              : eb.lit(0),
            'integer',
          )
          .as('orders'),
        eb
          .cast<number>(
            live
              ? eb
                  .selectFrom('customers')
                  .select(eb.fn.countAll().as('n'))
                  .where('account_id', '=', accountId)
              : eb.lit(0),
            'integer',
          )
          .as('customers'),
        eb.cast<number>(eb.fn.coalesce(eb.fn.sum('orders_added'), eb.lit(0)), 'integer').as('orders_before'),
        eb
          .cast<number>(eb.fn.coalesce(eb.fn.sum('customers_added'), eb.lit(0)), 'integer')
          .as('customers_before'),
      ])
      .where('account_id', '=', accountId)
      .where('status', '=', 'done')
      .where('id', '<>', taskId)
      .executeTakeFirstOrThrow();
    const orders = scored?.orders ?? r.orders;
    const customers = scored?.customers ?? r.customers;
    return {
      ordersAdded: Math.max(0, orders - r.orders_before),
      customersAdded: Math.max(0, customers - r.customers_before),
    };
  }
}

/**
 * Records `sync.completed` for a task that just ended, in the transaction that ended it (the
 * dispatcher delivers it to the subscriptions that chose it). Its id is the task's: a task ends once.
 */
async function announce(
  db: Kysely<RecomputeDatabase>,
  task: ClaimedTask,
  now: Date,
  end: Parameters<typeof syncCompleted>[0],
): Promise<void> {
  const o: Occurrence = syncCompleted(end);
  await recordOutboundEvents(db as unknown as Kysely<Database>, [
    { accountId: task.accountId, ...o, occurredAt: now },
  ]);
}
