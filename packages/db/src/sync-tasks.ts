import { randomUUID } from 'node:crypto';
import { sql, type Kysely, type Selectable } from 'kysely';
import { namedRaw } from './named-sql.js';
import type { Database, SyncTasksTable } from './schema.js';

/** Who queued a sync task (the same values as the SyncRequested record's trigger). */
export type SyncTaskTrigger = 'api' | 'nightly' | 'cli';

/** A task to queue: its id (name-based for the nightly run, so one process only inserts it) and account. */
export interface NewSyncTask {
  readonly id: string;
  readonly accountId: string;
}

/** The reason of a task whose SyncRequested command could not be appended. */
export const SYNC_APPEND_FAILED = 'append_failed';

/** Either the queued task, or how long until the account may queue again. */
export type ThrottledQueueOutcome =
  | { readonly queued: true; readonly taskId: string }
  | { readonly queued: false; readonly retryAfterSeconds: number };

/**
 * Queuing a sync task, the one way (gateway, nightly run and CLI): the `control.sync_tasks` row first
 * (state `queued`: a consumer that sees the command must find its task), then its SyncRequested
 * command. The one compensation, `abandonSyncTasks`: when the command cannot be appended (or its
 * barrier cannot be read), the task is marked `failed` with reason `append_failed`, so nothing waits
 * for a command that was never sent, the task stays on record, and the API's throttle does not count
 * it. A crash between the row and the command still leaves a queued task nobody runs (the outbox gap).
 */
export async function insertQueuedSyncTasks(
  db: Kysely<Database>,
  tasks: readonly NewSyncTask[],
  trigger: SyncTaskTrigger,
  now: Date,
): Promise<NewSyncTask[]> {
  if (!tasks.length) return [];
  const rows = await db
    .insertInto('control.sync_tasks')
    .values(
      tasks.map((t) => ({ id: t.id, account_id: t.accountId, trigger, status: 'queued', queued_at: now })),
    )
    .onConflict((oc) => oc.column('id').doNothing())
    .returning(['id', 'account_id'])
    .execute();
  return rows.map((r) => ({ id: r.id, accountId: r.account_id }));
}

/**
 * The compensation of a task whose command was not appended: `failed`, reason `append_failed`
 * (only while still `queued`: a task someone already ran keeps its state).
 */
export async function abandonSyncTasks(
  db: Kysely<Database>,
  taskIds: readonly string[],
  now = new Date(),
): Promise<void> {
  if (!taskIds.length) return;
  await db
    .updateTable('control.sync_tasks')
    .set({ status: 'failed', reason: SYNC_APPEND_FAILED, finished_at: now })
    .where('id', 'in', taskIds)
    .where('status', '=', 'queued')
    .execute();
}

/**
 * Inserts `tasks` (queued), then hands the inserted ones to `send`, `chunk` at a time, to append
 * their commands; when `send` throws, every inserted task not yet sent is abandoned
 * (`abandonSyncTasks`) and the error rethrown. Returns the inserted tasks (ids already present are
 * skipped: another process queued them).
 *
 * @example
 * await queueSyncTasks(db, [{ id: randomUUID(), accountId }], 'cli', now, (ts) => appendCommands(ts));
 */
export async function queueSyncTasks(
  db: Kysely<Database>,
  tasks: readonly NewSyncTask[],
  trigger: SyncTaskTrigger,
  now: Date,
  send: (tasks: readonly NewSyncTask[]) => Promise<void>,
  chunk = 500,
): Promise<NewSyncTask[]> {
  const inserted = await insertQueuedSyncTasks(db, tasks, trigger, now);
  for (let i = 0; i < inserted.length; i += chunk) {
    try {
      await send(inserted.slice(i, i + chunk));
    } catch (err) {
      await abandonSyncTasks(
        db,
        inserted.slice(i).map((t) => t.id),
        new Date(),
      );
      throw err;
    }
  }
  return inserted;
}

/**
 * Queues an API-triggered task unless the account queued one less than `intervalMs` ago (tasks
 * abandoned because their command was not appended do not count). The check and the insert run
 * under a per-account advisory lock in one transaction, so two gateway processes cannot both queue.
 * Why not a fixed window in rate_counters: "one per 10 minutes" is measured from the previous sync,
 * and its time is already in this table. The caller then appends the command, and abandons the task
 * (`abandonSyncTasks`) if it cannot.
 */
export async function queueThrottledSyncTask(
  db: Kysely<Database>,
  accountId: string,
  now: Date,
  intervalMs: number,
): Promise<ThrottledQueueOutcome> {
  return db.transaction().execute(async (trx): Promise<ThrottledQueueOutcome> => {
    await namedRaw(
      'sync-tasks.lock-account',
      sql`select pg_advisory_xact_lock(hashtextextended(${'holdfast:sync:' + accountId}, 0))`,
    ).execute(trx);
    const last = await trx
      .selectFrom('control.sync_tasks')
      .select((eb) => eb.fn.max('queued_at').as('queued_at'))
      .where('account_id', '=', accountId)
      .where('trigger', '=', 'api')
      .where((eb) => eb('reason', 'is', null).or('reason', '<>', SYNC_APPEND_FAILED))
      .executeTakeFirst();
    if (last?.queued_at) {
      const waitMs = new Date(last.queued_at).getTime() + intervalMs - now.getTime();
      if (waitMs > 0) return { queued: false, retryAfterSeconds: Math.ceil(waitMs / 1000) };
    }
    const [task] = await insertQueuedSyncTasks(trx, [{ id: randomUUID(), accountId }], 'api', now);
    return { queued: true, taskId: task!.id };
  });
}

const UUID = /^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$/i;

/** A sync task as GET /ingest/sync/{task_id} reads it. */
export type SyncTaskRow = Pick<
  Selectable<SyncTasksTable>,
  'id' | 'status' | 'queued_at' | 'orders_added' | 'customers_added' | 'duration_ms' | 'reason'
>;

/** The task if it exists AND belongs to the account; a non-UUID id is simply not found. */
export async function findSyncTask(
  db: Kysely<Database>,
  accountId: string,
  taskId: string,
): Promise<SyncTaskRow | null> {
  if (!UUID.test(taskId)) return null;
  const row = await db
    .selectFrom('control.sync_tasks')
    .select(['id', 'status', 'queued_at', 'orders_added', 'customers_added', 'duration_ms', 'reason'])
    .where('id', '=', taskId)
    .where('account_id', '=', accountId)
    .executeTakeFirst();
  return row ?? null;
}
