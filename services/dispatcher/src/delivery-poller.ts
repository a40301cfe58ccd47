import type { Database, SecretsKeyring } from '@holdfast/db';
import type { Kysely } from 'kysely';
import type { Logger, OutboundClient } from '@holdfast/platform';
import { cancelDelivery, claimDue, recordAttempt, type ClaimedDelivery } from './delivery-store.js';
import { postSigned } from './http-delivery.js';
import type { DispatcherMetrics } from './metrics.js';

/** What one poll did. */
export interface PollResult {
  readonly attempted: number;
  readonly delivered: number;
  readonly retryScheduled: number;
  readonly failed: number;
  readonly cancelled: number;
  /** Deliveries of quarantined subscriptions set aside unsent (see `claimDue`). */
  readonly parked: number;
}

export interface PollerOptions {
  readonly db: Kysely<Database>;
  readonly now: () => Date;
  /** The guarded outbound client every delivery goes through. */
  readonly outbound: OutboundClient;
  /** Opens the subscriptions' sealed signing secrets. */
  readonly keyring: SecretsKeyring;
  readonly logger: Logger;
  readonly metrics?: DispatcherMetrics;
  readonly batchSize: number;
  readonly timeoutMs: number;
  readonly leaseMs: number;
  readonly retryDelaysMs?: readonly number[];
}

/**
 * Delivers every delivery due now, batch by batch, until none is due: claim (with a lease), POST
 * signed, record the attempt and the next due time. Due-ness is judged by the injected clock, so a
 * test can move time forward by 15 minutes and poll.
 */
export async function pollOnce(o: PollerOptions): Promise<PollResult> {
  const r = { attempted: 0, delivered: 0, retryScheduled: 0, failed: 0, cancelled: 0, parked: 0 };
  for (;;) {
    const claim = await claimDue(o.db, o.now(), o.leaseMs, o.batchSize, o.keyring);
    for (const q of claim.quarantined)
      o.logger.error('webhook_subscription_quarantined', {
        subscription_id: q.subscriptionId,
        account_id: q.accountId,
        reason: q.reason,
      });
    r.parked += claim.parked;
    const claimed = claim.deliveries;
    await Promise.all(claimed.map((d) => deliverOne(o, d, r)));
    if (claim.claimed < o.batchSize) return r;
  }
}

async function deliverOne(
  o: PollerOptions,
  d: ClaimedDelivery,
  r: { -readonly [K in keyof PollResult]: number },
): Promise<void> {
  if (!d.url || !d.secrets.length) {
    await cancelDelivery(o.db, d.deliveryId);
    o.metrics?.onAttempt('cancelled');
    r.cancelled++;
    return;
  }
  const attemptedAt = o.now();
  const res = await postSigned(o.outbound, {
    url: d.url,
    secrets: d.secrets,
    event: d.event,
    deliveryId: d.deliveryId,
    body: d.body,
    timeoutMs: o.timeoutMs,
  });
  const status = await recordAttempt(o.db, d, { attemptedAt, finishedAt: o.now(), ...res }, o.retryDelaysMs);
  r.attempted++;
  if (status === null) return;
  const outcome = status === 'pending' ? 'retry_scheduled' : status;
  o.metrics?.onAttempt(outcome, res.durationMs);
  if (status === 'delivered') r.delivered++;
  else if (status === 'pending') r.retryScheduled++;
  else r.failed++;
  const ctx = {
    delivery_id: d.deliveryId,
    account_id: d.accountId,
    attempt: d.attempts + 1,
    status_code: res.statusCode,
  };
  if (status === 'delivered') o.logger.info('webhook_delivered', ctx);
  else
    o.logger.warn(status === 'failed' ? 'webhook_failed' : 'webhook_retry_scheduled', {
      ...ctx,
      error: res.error,
    });
}
