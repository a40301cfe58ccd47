import { randomUUID } from 'node:crypto';
import { sql, type Kysely } from 'kysely';
import type { Logger } from '@holdfast/platform';
import { recordAudit } from './console-people.js';
import type { Database } from '@holdfast/postgres';
import { startOutboxRelay, type SyncOutboxRelay, type SyncOutboxRelayOptions } from './sync-outbox-relay.js';

/** A store-settings change waiting in control.settings_outbox. */
export interface PendingSettingsChange {
  /** The event id the relay gives the AccountSettingsChanged it appends. */
  readonly id: string;
  readonly accountId: string;
  readonly storeTimezone: string;
  readonly requestedAt: Date;
}

/** Appends the changes to holdfast.account-settings (all of them, or it throws). */
export type SendSettingsChanges = (changes: readonly PendingSettingsChange[]) => Promise<void>;

/**
 * Queues a timezone change made in the console (already validated by the caller with
 * `validateAccountSettings`, the rule PATCH /ingest/account applies): the outbox row and its audit
 * entry in one transaction, so a change is either queued and audited or neither. The gateway's relay
 * appends it to the log (`relaySettingsChanges`); the projector folds it into the read model.
 */
export async function queueTimezoneChange(
  db: Kysely<Database>,
  change: {
    readonly accountId: string;
    readonly storeTimezone: string;
    readonly actorUserId: string;
    readonly from: string | null;
  },
  now = new Date(),
): Promise<PendingSettingsChange> {
  const id = randomUUID();
  await db.transaction().execute(async (trx) => {
    await trx
      .insertInto('control.settings_outbox')
      .values({ id, account_id: change.accountId, store_timezone: change.storeTimezone, requested_at: now })
      .execute();
    await recordAudit(
      trx,
      {
        accountId: change.accountId,
        actorUserId: change.actorUserId,
        action: 'settings.timezone',
        target: id,
        detail: { from: change.from, to: change.storeTimezone },
      },
      now,
    );
  });
  return { id, accountId: change.accountId, storeTimezone: change.storeTimezone, requestedAt: now };
}

/** The account's timezone changes not yet appended to the log, oldest first (the settings page shows them). */
export async function pendingTimezoneChanges(db: Kysely<Database>, accountId: string) {
  return db
    .selectFrom('control.settings_outbox')
    .select(['id', 'store_timezone', 'requested_at', 'attempts'])
    .where('account_id', '=', accountId)
    .orderBy('created_at')
    .execute();
}

/**
 * One relay pass, as `relaySyncCommands`: takes pending changes (row-locked, `skip locked`), in the
 * order they were made, hands them to `send` and deletes them once it returned; when `send` throws,
 * their `attempts` and `last_error` are recorded and the error rethrown. At least once: an append
 * repeated after a crash carries the same event id and the same timezone. Returns how many were
 * appended.
 */
export async function relaySettingsChanges(
  db: Kysely<Database>,
  send: SendSettingsChanges,
  scope: { readonly olderThanMs?: number; readonly limit?: number } = {},
): Promise<number> {
  const failed: { error?: Error } = {};
  const sent = await db.transaction().execute(async (trx) => {
    const rows = await trx
      .selectFrom('control.settings_outbox')
      .select(['id', 'account_id', 'store_timezone', 'requested_at'])
      .where(sql<boolean>`created_at <= now() - make_interval(secs => ${(scope.olderThanMs ?? 0) / 1000})`)
      .orderBy('created_at')
      .limit(scope.limit ?? 500)
      .forUpdate()
      .skipLocked()
      .execute();
    if (!rows.length) return 0;
    const ids = rows.map((r) => r.id);
    try {
      await send(
        rows.map((r) => ({
          id: r.id,
          accountId: r.account_id,
          storeTimezone: r.store_timezone,
          requestedAt: new Date(r.requested_at),
        })),
      );
    } catch (err) {
      failed.error = err instanceof Error ? err : new Error(String(err));
      await trx
        .updateTable('control.settings_outbox')
        .set((eb) => ({ attempts: eb('attempts', '+', 1), last_error: failed.error!.message.slice(0, 500) }))
        .where('id', 'in', ids)
        .execute();
      return 0;
    }
    await trx.deleteFrom('control.settings_outbox').where('id', 'in', ids).execute();
    return rows.length;
  });
  if (failed.error) throw failed.error;
  return sent;
}

/**
 * The settings relay each gateway process runs beside the sync-command relay: every `intervalMs`
 * (default 2 s), appends the changes the console queued, until the outbox is empty. A failed pass is
 * logged and tried again at the next tick; the changes stay in PostgreSQL meanwhile.
 */
export function startSettingsOutboxRelay(
  db: Kysely<Database>,
  send: SendSettingsChanges,
  logger: Logger,
  opts: SyncOutboxRelayOptions = {},
): SyncOutboxRelay {
  return startOutboxRelay(
    () => relaySettingsChanges(db, send, { olderThanMs: opts.olderThanMs }),
    logger,
    'settings_outbox',
    // The normal path of every console change, not a leftover.
    { ...opts, level: 'info' },
  );
}
