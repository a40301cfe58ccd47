// Test support: CampaignSent records appended to a test env's holdfast.campaigns topic.
import { randomUUID } from 'node:crypto';
import type { CampaignSent } from '@holdfast/contracts';
import { TransactionalAppender, topicName } from '@holdfast/kafka';
import type { TestEnv } from './test-env.js';

export function campaignSent(
  accountId: string,
  over: Partial<Omit<CampaignSent, 'metadata'>> = {},
): CampaignSent {
  const tracking = over.tracking_id ?? `hft_${randomUUID().replace(/-/g, '').slice(0, 24)}`;
  return {
    metadata: {
      account_id: accountId,
      event_id: randomUUID(),
      batch_id: null,
      request_id: null,
      key_id: null,
      received_at: '2025-03-01T09:00:00.000Z',
    },
    tracking_id: tracking,
    customer_id: randomUUID(),
    campaign_type: 'win_back',
    channel: 'email',
    provider: 'local-mail',
    url: `https://shop.example.com/?utm_source=holdfast&utm_medium=email&utm_campaign=win_back&utm_content=${tracking}`,
    sent_at: '2025-03-01T09:00:00.000Z',
    task_id: null,
    ...over,
  };
}

/** Appends records to holdfast.campaigns in one transaction, keyed by account. */
export async function appendCampaignSent(t: TestEnv, events: readonly CampaignSent[]): Promise<void> {
  const appender = await TransactionalAppender.create(t.kafka, {
    name: `${t.topicPrefix}test-campaigns`,
    size: 1,
  });
  try {
    await appender.append(
      events.map((e) => ({
        topic: topicName(t.topicPrefix, 'holdfast.campaigns'),
        key: e.metadata.account_id,
        value: t.codec.encode('CampaignSent', e),
      })),
    );
  } finally {
    await appender.close();
  }
}
