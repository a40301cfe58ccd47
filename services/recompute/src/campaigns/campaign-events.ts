import type { CampaignSent, EventCodec } from '@holdfast/contracts';
import { topicName, type Appender } from '@holdfast/kafka';
import { nameUuid } from '@holdfast/platform';
import type { SentSend } from './send-ledger.js';

/**
 * The event id of the CampaignSent record of a tracking id: a name-based UUID, so the record a crashed
 * run appends again is recognisably the same event (the projector and the dispatcher also key on the
 * tracking id, so a duplicate changes nothing downstream).
 */
export function campaignSentEventId(trackingId: string): string {
  return nameUuid(`holdfast.campaign-sent\u0000${trackingId}`);
}

/** The CampaignSent record of one sent message. */
export function campaignSentRecord(accountId: string, s: SentSend, receivedAt: Date): CampaignSent {
  return {
    metadata: {
      account_id: accountId,
      event_id: campaignSentEventId(s.trackingId),
      batch_id: null,
      request_id: null,
      key_id: null,
      received_at: receivedAt.toISOString(),
    },
    tracking_id: s.trackingId,
    customer_id: s.customerId,
    campaign_type: s.campaignType,
    channel: s.channel,
    provider: s.provider,
    url: s.url,
    sent_at: s.sentAt.toISOString(),
    task_id: s.taskId,
  };
}

/** Appends the records of `sends` to holdfast.campaigns in one Kafka transaction, keyed by account. */
export async function appendCampaignSent(
  appender: Appender,
  codec: Pick<EventCodec, 'encode'>,
  topicPrefix: string,
  accountId: string,
  sends: readonly SentSend[],
  now: Date,
): Promise<void> {
  await appender.append(
    sends.map((s) => ({
      topic: topicName(topicPrefix, 'holdfast.campaigns'),
      key: accountId,
      value: codec.encode('CampaignSent', campaignSentRecord(accountId, s, now)),
    })),
  );
}
