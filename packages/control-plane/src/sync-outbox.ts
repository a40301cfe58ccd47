import { sql, type Kysely } from 'kysely';
import type { Database } from '@holdfast/postgres';

/** A command waiting in control.sync_outbox. */
export interface PendingSyncCommand {
  readonly taskId: string;
  /** The record's key. */
  readonly accountId: string;
  /** The encoded SyncRequested value. */
  readonly command: Buffer;
}

/** Appends commands to holdfast.sync-commands (all of them, or it throws). */
export type SendSyncCommands = (commands: readonly PendingSyncCommand[]) => Promise<void>;

/** Which pending commands one relay pass takes. */
export interface RelayScope {
  /** These tasks' commands only (the caller that just queued them), whatever their age. */
  readonly taskIds?: readonly string[];
  /**
   * Otherwise the commands pending longer than this (default 5 s): younger ones are most likely
   * being appended by the process that queued them, and a relay taking them too would only append
   * them twice.
   */
  readonly olderThanMs?: number;
  /** Commands per pass (one append); default 500. */
  readonly limit?: number;
}

/**
 * One relay pass: takes pending commands (row-locked, `skip locked`: relays in several processes
 * never take the same row at once), hands them to `send` and deletes them once it returned. When
 * `send` throws, their `attempts` and `last_error` are recorded, the rows stay pending for the next
 * pass, and the error is rethrown. At least once: a process that dies after `send` and before the
 * commit appends them again next time, and the sync consumer records a task id once. Returns how
 * many commands were appended.
 *
 * @example
 * await relaySyncCommands(db, send, { taskIds: [taskId] }); // right after queueing
 * await relaySyncCommands(db, send); // the periodic pass: whatever was left behind
 */
export async function relaySyncCommands(
  db: Kysely<Database>,
  send: SendSyncCommands,
  scope: RelayScope = {},
): Promise<number> {
  if (scope.taskIds && scope.taskIds.length === 0) return 0;
  const failed: { error?: Error } = {};
  const sent = await db.transaction().execute(async (trx) => {
    let q = trx
      .selectFrom('control.sync_outbox')
      .select(['task_id', 'account_id', 'command'])
      .orderBy('created_at')
      .limit(scope.limit ?? 500)
      .forUpdate()
      .skipLocked();
    q = scope.taskIds
      ? q.where('task_id', 'in', scope.taskIds)
      : q.where(
          sql<boolean>`created_at <= now() - make_interval(secs => ${(scope.olderThanMs ?? 5_000) / 1000})`,
        );
    const rows = await q.execute();
    if (!rows.length) return 0;
    const ids = rows.map((r) => r.task_id);
    try {
      await send(rows.map((r) => ({ taskId: r.task_id, accountId: r.account_id, command: r.command })));
    } catch (err) {
      failed.error = err instanceof Error ? err : new Error(String(err));
      await trx
        .updateTable('control.sync_outbox')
        .set((eb) => ({
          attempts: eb('attempts', '+', 1),
          last_error: String((err as Error)?.message ?? err).slice(0, 500),
        }))
        .where('task_id', 'in', ids)
        .execute();
      return 0;
    }
    await trx.deleteFrom('control.sync_outbox').where('task_id', 'in', ids).execute();
    return rows.length;
  });
  if (failed.error) throw failed.error;
  return sent;
}

/**
 * Deletes the outbox rows of commands appended by their own producer (the gateway appends a sync's
 * command in the Kafka transaction of its batch record, then calls this).
 */
export async function markSyncCommandsSent(db: Kysely<Database>, taskIds: readonly string[]): Promise<void> {
  if (!taskIds.length) return;
  await db.deleteFrom('control.sync_outbox').where('task_id', 'in', taskIds).execute();
}

/** Commands pending and the age of the oldest (seconds; 0 when none), for a gauge and the runbook. */
export async function syncOutboxBacklog(
  db: Kysely<Database>,
): Promise<{ readonly pending: number; readonly oldestAgeSeconds: number }> {
  const r = await db
    .selectFrom('control.sync_outbox')
    .select([
      sql<string>`count(*)`.as('pending'),
      sql<number>`coalesce(extract(epoch from now() - min(created_at)), 0)::float8`.as('age'),
    ])
    .executeTakeFirstOrThrow();
  return { pending: Number(r.pending), oldestAgeSeconds: Number(r.age) };
}
