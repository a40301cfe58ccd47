import { randomUUID } from 'node:crypto';
import type { EventCodec } from '@holdfast/contracts';
import { createDb, type Pool } from '@holdfast/postgres';
import { queueSyncTasks, relaySyncCommands, type NewSyncTask } from '@holdfast/control-plane';
import { syncCommandSender, type Appender, type LogPositionSource } from '@holdfast/kafka';
import { nameUuid } from '@holdfast/platform';

/** What one night queued. */
export interface NightlyEnqueued {
  readonly accounts: number;
  /** Tasks this call created (0 for accounts another recompute process already queued tonight). */
  readonly queued: number;
}

export interface EnqueueNightlyDeps {
  readonly pool: Pool;
  readonly appender: Appender;
  readonly codec: Pick<EventCodec, 'encode'>;
  readonly topicPrefix: string;
  /** Where the night's barrier is read: the high watermarks of holdfast.commerce at fire time. */
  readonly positions: Pick<LogPositionSource, 'ofKeys'>;
}

/** Commands per Kafka transaction. */
const CHUNK = 500;

/**
 * The task id of an account's nightly recompute on the UTC day of `firedAt`: a name-based UUID, so
 * that every recompute process computes the same id and only the first to insert it queues the task.
 */
export function nightlyTaskId(accountId: string, firedAt: Date): string {
  const day = firedAt.toISOString().slice(0, 10);
  return nameUuid(`holdfast:nightly\u0000${accountId}\u0000${day}`);
}

/**
 * The nightly run: one sync task per account (trigger `nightly`, state queued) and its SyncRequested
 * command, appended to holdfast.sync-commands keyed by account. The sync consumer then runs them like
 * any other sync: queued → running → done, or skipped `already_running` when a sync of that account is
 * under way. One path for every recompute, so the task states mean the same whatever queued it.
 *
 * Each command carries the night's barrier: the high watermark, read once when the night starts, of
 * the account's partition of holdfast.commerce. Its recompute scores once the read models hold
 * everything appended before 02:00. If the watermarks cannot be read nothing is queued and the error
 * is thrown (the schedule logs `nightly_failed`): a night without a barrier could score stale data.
 *
 * Several recompute processes may fire at 02:00: the deterministic task id makes the insert succeed in
 * one of them only, and only that one appends the command. The tasks and their commands are queued
 * in one transaction (`queueSyncTasks`: the sync outbox); if the append fails (the error is thrown,
 * the schedule logs it) the commands stay in the outbox and the relay appends them once Kafka answers.
 */
export async function enqueueNightly(deps: EnqueueNightlyDeps, firedAt: Date): Promise<NightlyEnqueued> {
  const db = createDb(deps.pool);
  const accounts = await db.selectFrom('control.accounts').select('id').orderBy('id').execute();
  const ids = accounts.map((a) => a.id);
  // All at once, before anything is queued: every account's barrier is the log as of this moment.
  const positions = await deps.positions.ofKeys('holdfast.commerce', ids);
  const barrierOf = new Map(ids.map((id, i) => [id, positions[i]!]));
  const tasks = ids.map((id) => ({ id: nightlyTaskId(id, firedAt), accountId: id }));
  const commandOf = (t: NewSyncTask) =>
    deps.codec.encode('SyncRequested', {
      metadata: {
        account_id: t.accountId,
        event_id: randomUUID(),
        batch_id: null,
        request_id: null,
        key_id: null,
        received_at: firedAt.toISOString(),
      },
      task_id: t.id,
      trigger: 'nightly',
      barrier: [barrierOf.get(t.accountId)!],
    });
  const inserted = await queueSyncTasks(db, tasks, 'nightly', firedAt, commandOf);
  // Appended now, CHUNK commands per Kafka transaction; what fails stays in the outbox for the relay.
  const send = syncCommandSender(deps.appender, deps.topicPrefix);
  for (let i = 0; i < inserted.length; i += CHUNK)
    await relaySyncCommands(db, send, { taskIds: inserted.slice(i, i + CHUNK).map((t) => t.id) });
  return { accounts: ids.length, queued: inserted.length };
}
