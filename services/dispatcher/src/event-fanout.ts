import { webhookBody } from '@holdfast/domain';
import { kyselyOn, withTransaction, type Database, type Pool } from '@holdfast/postgres';
import { deliveryId } from './delivery-id.js';
import { activeSubscriptions, insertDeliveries, type NewDelivery } from './delivery-store.js';

/** Occurrences fanned out per transaction. */
export const FANOUT_BATCH = 500;

/**
 * Turns recorded occurrences of the planned outbound events (`control.outbound_events`, written by
 * the recompute) into pending deliveries: one per active subscription of the account that chose the
 * event type, with the delivery id of (subscription, event id) and the body `{event, data}`, then marks
 * the occurrence fanned out, in one transaction (skip locked: several dispatchers share the work). A
 * delivery that exists already is left alone, so an occurrence reaches each subscription once.
 *
 * @returns how many deliveries were created.
 */
export async function fanOutEvents(pool: Pool, now: Date, limit = FANOUT_BATCH): Promise<number> {
  return withTransaction(pool, async (c) => {
    const db = kyselyOn<Database>(c);
    const events = await db
      .selectFrom('control.outbound_events')
      .select(['event_id', 'account_id', 'event_type', 'data'])
      .where('fanned_out_at', 'is', null)
      .orderBy('created_at')
      .limit(limit)
      .forUpdate()
      .skipLocked()
      .execute();
    if (!events.length) return 0;
    const list: NewDelivery[] = [];
    for (const type of new Set(events.map((e) => e.event_type))) {
      const ofType = events.filter((e) => e.event_type === type);
      const subs = await activeSubscriptions(c, [...new Set(ofType.map((e) => e.account_id))], type);
      for (const e of ofType)
        for (const subscriptionId of subs.get(e.account_id) ?? [])
          list.push({
            deliveryId: deliveryId(subscriptionId, e.event_id),
            accountId: e.account_id,
            subscriptionId,
            event: type,
            sourceId: e.event_id,
            body: webhookBody(type, e.data),
          });
    }
    const created = await insertDeliveries(c, list, now);
    await db
      .updateTable('control.outbound_events')
      .set({ fanned_out_at: now })
      .where(
        'event_id',
        'in',
        events.map((e) => e.event_id),
      )
      .execute();
    return created;
  });
}
