import { randomUUID } from 'node:crypto';
import { sql, type Kysely, type Selectable } from 'kysely';
import { namedRaw, type Database, type SyncTasksTable } from '@holdfast/postgres';

/** Who queued a sync task (the same values as the SyncRequested record's trigger). */
export type SyncTaskTrigger = 'api' | 'nightly' | 'cli';

/** A task to queue: its id (name-based for the nightly run, so one process only inserts it) and account. */
export interface NewSyncTask {
  readonly id: string;
  readonly accountId: string;
}

/**
 * The reason of a task whose SyncRequested command could not be appended, from before the outbox
 * (such tasks were abandoned); kept so the throttle still leaves those old rows out.
 */
export const SYNC_APPEND_FAILED = 'append_failed';

/** Either the queued task, or how long until the account may queue again. */
export type ThrottledQueueOutcome =
  | { readonly queued: true; readonly taskId: string }
  | { readonly queued: false; readonly retryAfterSeconds: number };

/**
 * Inserts `tasks` (state `queued`) and, for each one inserted, its encoded SyncRequested command in
 * control.sync_outbox, on `trx` (the caller's transaction: the task and its command commit together
 * or not at all). Ids already present are skipped (another process queued them) and get no command.
 */
async function insertTasksWithCommands(
  trx: Kysely<Database>,
  tasks: readonly NewSyncTask[],
  trigger: SyncTaskTrigger,
  now: Date,
  commandOf: (task: NewSyncTask) => Buffer,
): Promise<NewSyncTask[]> {
  if (!tasks.length) return [];
  const rows = await trx
    .insertInto('control.sync_tasks')
    .values(
      tasks.map((t) => ({ id: t.id, account_id: t.accountId, trigger, status: 'queued', queued_at: now })),
    )
    .onConflict((oc) => oc.column('id').doNothing())
    .returning(['id', 'account_id'])
    .execute();
  const inserted = rows.map((r) => ({ id: r.id, accountId: r.account_id }));
  if (inserted.length)
    await trx
      .insertInto('control.sync_outbox')
      .values(inserted.map((t) => ({ task_id: t.id, account_id: t.accountId, command: commandOf(t) })))
      .execute();
  return inserted;
}

/**
 * Queuing sync tasks, the one way (gateway, nightly run and CLI): each task row (`queued`) and its
 * SyncRequested command (in control.sync_outbox) in ONE transaction, so a task cannot exist without
 * its command. The caller then appends the commands at once (`relaySyncCommands` with their ids);
 * whatever it could not append, the outbox relay of every gateway and recompute process appends
 * later (at least once: the sync consumer records a task id once). Returns the inserted tasks (ids
 * already present are skipped: another process queued them).
 *
 * @example
 * const queued = await queueSyncTasks(db, [{ id: randomUUID(), accountId }], 'cli', now, (t) => encode(t));
 * await relaySyncCommands(db, send, { taskIds: queued.map((t) => t.id) });
 */
export async function queueSyncTasks(
  db: Kysely<Database>,
  tasks: readonly NewSyncTask[],
  trigger: SyncTaskTrigger,
  now: Date,
  commandOf: (task: NewSyncTask) => Buffer,
): Promise<NewSyncTask[]> {
  return db.transaction().execute((trx) => insertTasksWithCommands(trx, tasks, trigger, now, commandOf));
}

/**
 * Queues an API-triggered task unless the account queued one less than `intervalMs` ago (tasks
 * abandoned before the outbox do not count). The check, the command (`commandOf`, e.g. reading the
 * barrier: when it throws, nothing is queued) and the insert of the task with its command run under
 * a per-account advisory lock in one transaction, so two gateway processes cannot both queue.
 * Why not a fixed window in rate_counters: "one per 10 minutes" is measured from the previous sync,
 * and its time is already in this table.
 */
export async function queueThrottledSyncTask(
  db: Kysely<Database>,
  accountId: string,
  now: Date,
  intervalMs: number,
  commandOf: (taskId: string) => Promise<Buffer>,
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
    const taskId = randomUUID();
    const command = await commandOf(taskId);
    await insertTasksWithCommands(trx, [{ id: taskId, accountId }], 'api', now, () => command);
    return { queued: true, taskId };
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

/** The account's most recent sync tasks, newest first (the console's sync page). */
export async function listSyncTasks(db: Kysely<Database>, accountId: string, limit = 50) {
  return db
    .selectFrom('control.sync_tasks')
    .select([
      'id',
      'trigger',
      'status',
      'queued_at',
      'started_at',
      'finished_at',
      'orders_added',
      'customers_added',
      'duration_ms',
      'reason',
    ])
    .where('account_id', '=', accountId)
    .orderBy('queued_at', 'desc')
    .orderBy('id')
    .limit(limit)
    .execute();
}
