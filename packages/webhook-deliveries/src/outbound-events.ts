import type { Kysely, Transaction } from 'kysely';
import { nameUuid } from '@holdfast/platform';
import type { Database } from '@holdfast/postgres';

/** One occurrence of a planned outbound event, as its producer (the recompute) records it. */
export interface OutboundEvent {
  readonly accountId: string;
  /** `customer.churned`, `recovery.attributed`, `lift.proven` or `sync.completed`. */
  readonly type: string;
  /** What it is about and which occurrence: the natural key the id is derived from. */
  readonly subject: string;
  /** The webhook's `data` (JSON). */
  readonly data: Readonly<Record<string, unknown>>;
  readonly occurredAt: Date;
}

/**
 * The id of an occurrence: a name-based UUID of (account, type, subject). `subject` is the
 * occurrence's natural key (a customer and the purchase count it lapsed after; an order; a campaign
 * type and month; a task), so computing the same occurrence again, in a second recompute or after a
 * replay, gives the same id, and the insert finds it there.
 *
 * @example
 * outboundEventId(accountId, 'sync.completed', `task:${taskId}`);
 */
export function outboundEventId(accountId: string, type: string, subject: string): string {
  return nameUuid(`holdfast.outbound-event\u0000${accountId}\u0000${type}\u0000${subject}`);
}

/**
 * Records occurrences (inside the caller's transaction, beside the change they announce); one already
 * recorded is left alone. The dispatcher fans them out to the subscriptions that chose their type.
 *
 * @returns how many were new.
 */
export async function recordOutboundEvents(
  db: Kysely<Database> | Transaction<Database>,
  events: readonly OutboundEvent[],
): Promise<number> {
  let inserted = 0;
  // Chunks keep a statement under pg's 65,535 parameters (six a row).
  for (let i = 0; i < events.length; i += 5000) inserted += await insertChunk(db, events.slice(i, i + 5000));
  return inserted;
}

async function insertChunk(
  db: Kysely<Database> | Transaction<Database>,
  events: readonly OutboundEvent[],
): Promise<number> {
  const r = await db
    .insertInto('control.outbound_events')
    .values(
      events.map((e) => ({
        event_id: outboundEventId(e.accountId, e.type, e.subject),
        account_id: e.accountId,
        event_type: e.type,
        subject: e.subject,
        data: JSON.stringify(e.data),
        occurred_at: e.occurredAt,
      })),
    )
    .onConflict((oc) => oc.column('event_id').doNothing())
    .executeTakeFirst();
  return Number(r.numInsertedOrUpdatedRows ?? 0);
}
