import type { EventCodec } from '@holdfast/contracts';
import { signUnsubscribeToken, type UnsubscribeKeys } from '@holdfast/secrets';
import type { Pool } from '@holdfast/postgres';
import { decideSendRetry, resolveUnconfirmedSend, type ProviderFailure } from '@holdfast/domain';
import type { Appender } from '@holdfast/kafka';
import { backoffDelay, describeFailure, sleep, type Logger } from '@holdfast/platform';
import { appendCampaignSent } from './campaign-events.js';
import { buildCtaUrl } from './cta-url.js';
import type { ProviderAdapter } from './providers/index.js';
import {
  createSendLedger,
  markAppended,
  unappendedSends,
  type OpenSend,
  type SendLedger,
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

/** What `sendPlanned` did with the account's open sends. */
export interface SendOutcome {
  readonly sent: number;
  readonly failed: number;
  readonly possiblySent: number;
  /** Left `planned` (or `sending`, resend-safe) for the next run: their provider was down. */
  readonly deferred: number;
}

/**
 * Sends every open message of the account through its provider's adapter, `concurrency` at a time,
 * at most once each (docs/campaigns.md, "At most once"):
 *
 * - **claim before, record after**: each send is claimed (`planned` → `sending`, `claimed_at`) in a
 *   committed statement that also reads the customer's contact and consent at that moment (a customer
 *   who unsubscribed or replied STOP since the plan, or has no contact any more, is not sent: `failed`
 *   with `consent_withdrawn` / `no_contact`, no attempt); then the provider is called; then the outcome
 *   is recorded (`sent`, `failed`, or `possibly_sent` after a timeout on a provider that is not
 *   resend-safe).
 * - **an unconfirmed claim** (`sending`, left by a step that died or failed between the hand-over and
 *   the record) is resolved by `resolveUnconfirmedSend`: asked again with the same `Idempotency-Key`
 *   on a resend-safe provider (the JSON endpoint), else `possibly_sent` and never sent again.
 * - **a failing write stops the step**: the first ledger write that throws stops every worker from
 *   claiming or handing over anything more (a message claimed but not yet handed over is released to
 *   `planned`); messages already with the provider finish and are recorded; then the error is thrown
 *   (the task is retried, and the retry finds the unrecorded one as `sending`).
 *
 * A retriable provider failure is retried with backoff up to `retry.maxAttempts` (`decideSendRetry`);
 * the row records the attempts, the last error class and its kind.
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
  /** The ledger's writes (default: `createSendLedger(pool, readModelSchema)`; tests wrap it). */
  readonly ledger?: SendLedger;
}): Promise<SendOutcome> {
  const ledger = o.ledger ?? createSendLedger(o.pool, o.readModelSchema);
  const queue = await ledger.openSends(o.accountId);
  let sent = 0;
  let failed = 0;
  let possiblySent = 0;
  let deferred = 0;
  // Sends in a row per provider that failed with a retriable error (reset by any other outcome).
  const downStreak = new Map<string, number>();
  // The first ledger write that failed: once set, nothing more is claimed or handed over.
  let stop: { readonly error: unknown } | null = null;
  // Cuts short the backoff of a send between attempts when the step stops.
  const stopping = new AbortController();

  const sendOne = async (p: OpenSend): Promise<void> => {
    const adapter = o.adapters.get(p.provider);
    const usable = adapter && adapter.channel === p.channel ? adapter : null;
    if (
      p.status === 'sending' &&
      resolveUnconfirmedSend({ resendSafe: usable?.resendSafe ?? false, consentOk: true }) === 'possibly_sent'
    ) {
      // Claimed by an earlier step, never confirmed, on a provider that cannot drop a repeat.
      await ledger.markPossiblySent(p.assignmentId, { error: 'unconfirmed_claim', attempts: 0 });
      possiblySent++;
      o.logger.warn('campaign_send_possibly_sent', {
        account_id: o.accountId,
        tracking_id: p.trackingId,
        provider: p.provider,
        reason: 'unconfirmed_claim',
      });
      return;
    }
    if ((downStreak.get(p.provider) ?? 0) >= o.retry.breakerFailures) {
      deferred++;
      return;
    }
    const refusal = !usable
      ? 'provider_not_connected'
      : p.channel === 'email' && !o.unsubscribe
        ? 'unsubscribe_url_missing'
        : null;
    if (refusal || !usable) {
      if (p.status === 'sending') {
        // Maybe handed over by the step that claimed it: never recorded as failed.
        await ledger.markPossiblySent(p.assignmentId, { error: 'unconfirmed_claim', attempts: 0 });
        possiblySent++;
        return;
      }
      await ledger.markFailed(p.assignmentId, {
        error: refusal ?? 'not_sendable',
        failureKind: 'permanent',
        attempts: 0,
      });
      failed++;
      return;
    }
    if (stop) return;
    const claim = await ledger.claim(p, p.status, o.now());
    if (!claim.claimed) {
      if (claim.reason === 'gone') return;
      if (p.status === 'sending') {
        // An unconfirmed claim whose customer withdrew consent since: nothing more is sent
        // (resolveUnconfirmedSend with consentOk false).
        await ledger.markPossiblySent(p.assignmentId, { error: 'unconfirmed_claim', attempts: 0 });
        possiblySent++;
      } else {
        await ledger.markFailed(p.assignmentId, {
          error: claim.reason,
          failureKind: 'permanent',
          attempts: 0,
        });
        failed++;
      }
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
      to: claim.to,
      ctaUrl: url,
      unsubscribeUrl,
    };
    let lastFailure: ProviderFailure | null = null;
    for (let attempt = 1; ; attempt++) {
      if (stop) {
        // Claimed, and every attempt so far was refused: nothing is with the provider.
        await ledger.release(p.assignmentId, attempt - 1);
        return;
      }
      const result = await usable.send(message);
      const d = decideSendRetry(result, attempt, o.retry.maxAttempts, usable.resendSafe);
      if (d.next === 'done' && d.status === 'sent') {
        downStreak.set(p.provider, 0);
        await ledger.markSent(p.assignmentId, {
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
      if (d.next === 'done' && d.status === 'possibly_sent') {
        await ledger.markPossiblySent(p.assignmentId, { error: d.failure.errorClass, attempts: attempt });
        possiblySent++;
        o.logger.warn('campaign_send_possibly_sent', {
          account_id: o.accountId,
          tracking_id: p.trackingId,
          provider: p.provider,
          reason: d.failure.errorClass,
        });
        return;
      }
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
        await ledger.markFailed(p.assignmentId, {
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
      await sleep(delayMs, stopping.signal);
    }
  };
  let next = 0;
  const worker = async (): Promise<void> => {
    while (!stop && next < queue.length) {
      const p = queue[next++]!;
      try {
        await sendOne(p);
      } catch (error) {
        if (!stop) {
          stop = { error };
          stopping.abort();
          o.logger.warn('campaign_sends_stopped', {
            account_id: o.accountId,
            tracking_id: p.trackingId,
            ...describeFailure(error),
          });
        }
      }
    }
  };
  await Promise.all(Array.from({ length: Math.max(1, o.concurrency) }, worker));
  if (stop) throw (stop as { error: unknown }).error;
  return { sent, failed, possiblySent, deferred };
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
