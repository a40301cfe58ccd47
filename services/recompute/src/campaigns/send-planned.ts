import type { EventCodec } from '@holdfast/contracts';
import { signUnsubscribeToken, type Pool, type UnsubscribeKeys } from '@holdfast/db';
import { decideSendRetry, type ProviderFailure } from '@holdfast/domain';
import type { Appender } from '@holdfast/kafka';
import { backoffDelay, sleep, type Logger } from '@holdfast/platform';
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

/** How a failed attempt is retried: at most `maxAttempts` in all, full-jitter backoff in between. */
export interface SendRetryPolicy {
  readonly maxAttempts: number;
  readonly baseMs: number;
  readonly maxMs: number;
  /**
   * After this many sends in a row of one provider failed with a retriable error (its retries spent),
   * the provider is taken as down for the rest of the run: its remaining messages stay `planned`,
   * unattempted, and the next sending run sends them. Without it an outage would hold the run for
   * every message's retries in turn.
   */
  readonly breakerFailures: number;
}

/**
 * Sends every planned message of the account through its provider's adapter, `concurrency` at a time,
 * and notes each outcome on its ledger row. Consent and contact are re-read at send time: a customer
 * who withdrew consent since the plan (an unsubscribe or a STOP folded since), or a plan a crashed run
 * left behind, is not sent. A retriable provider failure is retried with backoff up to
 * `retry.maxAttempts` (`decideSendRetry`); the row records the attempts, the last error class and its
 * kind, and the final status (sent or failed).
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
  /** Where unsubscribe links point and what signs them; null: no email can be sent. */
  readonly unsubscribe: { readonly publicUrl: string; readonly keys: UnsubscribeKeys } | null;
  readonly retry: SendRetryPolicy;
  readonly random?: () => number;
}): Promise<{ sent: number; failed: number; deferred: number }> {
  const queue = await plannedSends(o.pool, o.readModelSchema, o.accountId);
  let sent = 0;
  let deferred = 0;
  // Sends in a row per provider that failed with a retriable error (reset by any other outcome).
  const downStreak = new Map<string, number>();
  let failed = 0;
  const sendOne = async (p: PlannedSend): Promise<void> => {
    if ((downStreak.get(p.provider) ?? 0) >= o.retry.breakerFailures) {
      deferred++;
      return;
    }
    const adapter = o.adapters.get(p.provider);
    const refusal =
      !adapter || adapter.channel !== p.channel
        ? 'provider_not_connected'
        : !p.to
          ? 'no_contact'
          : !p.consentOk
            ? 'consent_withdrawn'
            : p.channel === 'email' && !o.unsubscribe
              ? 'unsubscribe_url_missing'
              : null;
    if (refusal || !adapter || !p.to) {
      await markFailed(o.pool, p.assignmentId, {
        error: refusal ?? 'not_sendable',
        failureKind: 'permanent',
        attempts: 0,
      });
      failed++;
      return;
    }
    const url = buildCtaUrl(o.storefrontDomain, p.channel, p.campaignType, p.trackingId);
    const unsubscribeUrl =
      p.channel === 'email' && o.unsubscribe
        ? `${o.unsubscribe.publicUrl.replace(/\/+$/, '')}/unsubscribe/${signUnsubscribeToken(
            o.unsubscribe.keys,
            {
              accountId: o.accountId,
              customerId: p.customerId,
              channel: 'email',
            },
          )}`
        : null;
    const message = {
      trackingId: p.trackingId,
      campaignType: p.campaignType,
      to: p.to,
      ctaUrl: url,
      unsubscribeUrl,
    };
    let lastFailure: ProviderFailure | null = null;
    for (let attempt = 1; ; attempt++) {
      const result = await adapter.send(message);
      const d = decideSendRetry(result, attempt, o.retry.maxAttempts);
      if (d.next === 'done' && d.status === 'sent') {
        downStreak.set(p.provider, 0);
        await markSent(o.pool, p.assignmentId, {
          url,
          statusCode: result.ok ? result.status : null,
          sentAt: o.now(),
          attempts: attempt,
          lastFailure,
        });
        sent++;
        return;
      }
      lastFailure = d.failure;
      if (d.next === 'done') {
        const streak = d.failure.kind === 'retriable' ? (downStreak.get(p.provider) ?? 0) + 1 : 0;
        downStreak.set(p.provider, streak);
        if (streak === o.retry.breakerFailures)
          o.logger.warn('campaign_provider_down', {
            account_id: o.accountId,
            provider: p.provider,
            failures_in_a_row: streak,
            error: d.failure.errorClass,
          });
        await markFailed(o.pool, p.assignmentId, {
          error: d.failure.errorClass,
          failureKind: d.failure.kind,
          statusCode: !result.ok && result.kind !== 'outbound' ? result.status : null,
          attempts: attempt,
        });
        failed++;
        o.logger.warn('campaign_send_failed', {
          account_id: o.accountId,
          tracking_id: p.trackingId,
          provider: p.provider,
          attempts: attempt,
          error: d.failure.errorClass,
          failure_kind: d.failure.kind,
        });
        return;
      }
      const delayMs = backoffDelay(attempt - 1, o.retry, o.random);
      o.logger.info('campaign_send_retrying', {
        account_id: o.accountId,
        tracking_id: p.trackingId,
        provider: p.provider,
        attempt,
        error: d.failure.errorClass,
        delay_ms: delayMs,
      });
      await sleep(delayMs);
    }
  };
  let next = 0;
  const worker = async (): Promise<void> => {
    while (next < queue.length) await sendOne(queue[next++]!);
  };
  await Promise.all(Array.from({ length: Math.max(1, o.concurrency) }, worker));
  return { sent, failed, deferred };
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
