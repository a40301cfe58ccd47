import type { EventCodec } from '@holdfast/contracts';
import type { Pool } from '@holdfast/db';
import type { Appender } from '@holdfast/kafka';
import type { Logger } from '@holdfast/platform';
import { appendCampaignSent } from './campaign-events.js';
import { buildCtaUrl } from './cta-url.js';
import type { ProviderAdapter } from './providers/index.js';
import {
  markAppended,
  markFailed,
  markSent,
  plannedSends,
  unappendedSends,
  type PlannedSend,
} from './send-ledger.js';

/**
 * Sends every planned message of the account through its provider's adapter, `concurrency` at a time,
 * and notes each outcome on its ledger row. Consent and contact are re-read at send time: a customer
 * who withdrew consent since the plan (or a plan a crashed run left behind) is not sent.
 */
export async function sendPlanned(o: {
  readonly pool: Pool;
  readonly readModelSchema: string;
  readonly accountId: string;
  readonly storefrontDomain: string;
  readonly adapters: ReadonlyMap<string, ProviderAdapter>;
  readonly now: () => Date;
  readonly concurrency: number;
  readonly logger: Logger;
}): Promise<{ sent: number; failed: number }> {
  const queue = await plannedSends(o.pool, o.readModelSchema, o.accountId);
  let sent = 0;
  let failed = 0;
  const sendOne = async (p: PlannedSend): Promise<void> => {
    const adapter = o.adapters.get(p.provider);
    const refusal =
      !adapter || adapter.channel !== p.channel
        ? 'provider_not_connected'
        : !p.to
          ? 'no_contact'
          : !p.consentOk
            ? 'consent_withdrawn'
            : null;
    if (refusal || !adapter || !p.to) {
      await markFailed(o.pool, p.assignmentId, { error: refusal ?? 'not_sendable', attempted: false });
      failed++;
      return;
    }
    const url = buildCtaUrl(o.storefrontDomain, p.channel, p.campaignType, p.trackingId);
    const res = await adapter.send({
      trackingId: p.trackingId,
      campaignType: p.campaignType,
      to: p.to,
      ctaUrl: url,
    });
    if (res.ok) {
      await markSent(o.pool, p.assignmentId, { url, statusCode: res.statusCode, sentAt: o.now() });
      sent++;
    } else {
      await markFailed(o.pool, p.assignmentId, {
        error: res.error ?? 'provider_error',
        statusCode: res.statusCode,
        attempted: true,
      });
      failed++;
      o.logger.warn('campaign_send_failed', {
        account_id: o.accountId,
        tracking_id: p.trackingId,
        provider: p.provider,
        status_code: res.statusCode,
        error: res.error,
      });
    }
  };
  let next = 0;
  const worker = async (): Promise<void> => {
    while (next < queue.length) await sendOne(queue[next++]!);
  };
  await Promise.all(Array.from({ length: Math.max(1, o.concurrency) }, worker));
  return { sent, failed };
}

/**
 * Appends a CampaignSent record for every sent message not yet noted as appended, 500 per Kafka
 * transaction, then notes them. A crash between the two appends them again on the next run: the
 * records carry the same event id and tracking id, and every consumer keys on the tracking id.
 */
export async function flushCampaignEvents(o: {
  readonly pool: Pool;
  readonly appender: Appender;
  readonly codec: Pick<EventCodec, 'encode'>;
  readonly topicPrefix: string;
  readonly accountId: string;
  readonly now: () => Date;
}): Promise<number> {
  let appended = 0;
  for (;;) {
    const batch = await unappendedSends(o.pool, o.accountId, 500);
    if (!batch.length) return appended;
    await appendCampaignSent(o.appender, o.codec, o.topicPrefix, o.accountId, batch, o.now());
    await markAppended(
      o.pool,
      batch.map((s) => s.assignmentId),
      o.now(),
    );
    appended += batch.length;
  }
}
