import type { CampaignSent, EventCodec } from '@holdfast/contracts';
import { readCheckpoint, withTransaction, writeCheckpoint, type Pool } from '@holdfast/postgres';
import {
  deadLetterOf,
  deadLetterReason,
  type BatchHandler,
  type DeadLetter,
  type DeadLetterPublisher,
} from '@holdfast/kafka';
import type { Logger } from '@holdfast/platform';
import { deliveryId } from './delivery-id.js';
import { activeSubscriptions, insertDeliveries, type NewDelivery } from './delivery-store.js';

/** The only event emitted today (spec, Events: outbound webhooks). */
export const CAMPAIGN_SENT = 'campaign.sent';

/**
 * The webhook body of a CampaignSent record. Only the three fields the spec names: no customer id,
 * no address, no URL (receivers join on tracking_id).
 */
export function campaignSentBody(
  e: Pick<CampaignSent, 'campaign_type' | 'provider' | 'tracking_id'>,
): string {
  return JSON.stringify({
    event: CAMPAIGN_SENT,
    data: { campaign_type: e.campaign_type, provider: e.provider, tracking_id: e.tracking_id },
  });
}

/** Who dead-letters campaign records (the `projection` field of their DeadLettered record). */
export const DISPATCHER_DLQ_NAME = 'dispatcher.deliveries';

/**
 * The batch handler of holdfast.campaigns: turns each CampaignSent record into one pending delivery per
 * active subscription of its account, in the same transaction as the dispatcher's checkpoint (records
 * at or below the checkpoint are skipped), so every record is enqueued exactly once. `onEnqueued` is
 * told how many deliveries were created (the poller is woken with it).
 *
 * The shared poison policy: a record that can never be read (not a record, an unknown schema, not a
 * CampaignSent) is dead-lettered to holdfast.dlq with its reason, before the checkpoint moves past
 * it; a registry or database outage is thrown, and the runner retries the chunk until it is back.
 */
export function campaignBatchHandler(deps: {
  readonly pool: Pool;
  readonly codec: Pick<EventCodec, 'decode'>;
  readonly logger: Logger;
  readonly now: () => Date;
  readonly onEnqueued: (count: number) => void;
  readonly deadLetters: DeadLetterPublisher;
}): BatchHandler {
  return async ({ partition, records }) => {
    const events: { offset: number; value: CampaignSent }[] = [];
    const dead: DeadLetter[] = [];
    for (const r of records) {
      let reason: string | undefined;
      try {
        if (!r.value) reason = 'empty record value';
        else {
          const e = await deps.codec.decode(r.value);
          if (e.type === 'CampaignSent') events.push({ offset: Number(r.offset), value: e.value });
          else reason = `unexpected record type ${e.type} for ${DISPATCHER_DLQ_NAME}`;
        }
      } catch (err) {
        reason = `undecodable: ${deadLetterReason(err)}`;
      }
      if (reason !== undefined) dead.push(deadLetterOf(DISPATCHER_DLQ_NAME, 'holdfast.campaigns', r, reason));
    }
    const key = { schema: 'dispatcher', projection: 'deliveries', topic: 'holdfast.campaigns', partition };
    const last = Number(records[records.length - 1]!.offset);
    let created = 0;
    await withTransaction(deps.pool, async (client) => {
      const checkpoint = await readCheckpoint(client, key);
      const fresh = events.filter((e) => e.offset > checkpoint).map((e) => e.value);
      const subs = await activeSubscriptions(
        client,
        [...new Set(fresh.map((e) => e.metadata.account_id))],
        CAMPAIGN_SENT,
      );
      const list: NewDelivery[] = fresh.flatMap((e) =>
        (subs.get(e.metadata.account_id) ?? []).map((subscriptionId) => ({
          deliveryId: deliveryId(subscriptionId, e.tracking_id),
          accountId: e.metadata.account_id,
          subscriptionId,
          event: CAMPAIGN_SENT,
          sourceId: e.tracking_id,
          body: campaignSentBody(e),
        })),
      );
      created = await insertDeliveries(client, list, deps.now());
      const freshDead = dead.filter((d) => Number(d.offset) > checkpoint);
      // Announced before the checkpoint commits: a crash in between announces a letter twice, never zero times.
      await deps.deadLetters.publish(freshDead);
      for (const d of freshDead)
        deps.logger.warn('record_dead_lettered', {
          projection: d.projection,
          partition: d.partition,
          offset: d.offset,
          request_id: d.requestId ?? null,
          reason: d.reason.replace(/"[^"]*"/g, '"…"'),
        });
      if (last > checkpoint) await writeCheckpoint(client, key, last);
    });
    if (created) deps.onEnqueued(created);
    return { kind: 'applied' };
  };
}
