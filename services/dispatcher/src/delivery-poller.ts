import type { Database } from '@holdfast/postgres';
import type { SecretsKeyring } from '@holdfast/secrets';
import type { Kysely } from 'kysely';
import type { Logger, OutboundClient } from '@holdfast/platform';
import {
  cancelDelivery,
  claimDue,
  recordAttempt,
  releaseClaims,
  type ClaimedDelivery,
} from './delivery-store.js';
import type { Doorbell } from './doorbell.js';
import { postSigned } from './http-delivery.js';
import { writeRecord } from './record-retry.js';
import type { DispatcherMetrics } from './metrics.js';
import { admitClaimed, saturatedSubscriptions } from './send-pool.js';

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
  /** Deliveries in flight at most (the pool's size), and at most claimed at once. */
  readonly batchSize: number;
  /** Deliveries of one subscription in flight at most (default 4): a slow receiver holds no more. */
  readonly maxInFlightPerSubscription?: number;
  /**
   * While deliveries are in flight and nothing else was due, claim again after this long even if
   * none finished (default 1,000 ms): what a slow receiver can delay the others by, at most.
   */
  readonly reclaimMs?: number;
  /** Rung when deliveries are enqueued: a poll waiting beside slow receivers claims again at once. */
  readonly doorbell?: Doorbell;
  readonly timeoutMs: number;
  readonly leaseMs: number;
  readonly retryDelaysMs?: readonly number[];
}

/**
 * Delivers every delivery due now until none is due, through a bounded pool: up to `batchSize` in
 * flight, at most `maxInFlightPerSubscription` of one subscription. Claims (with a lease) fill free
 * slots as attempts finish, so a receiver that takes the whole timeout holds its own slots, not the
 * others' deliveries: no batch waits for its slowest member. Each attempt is POSTed signed and
 * recorded with the next due time. Due-ness is judged by the injected clock, so a test can move time
 * forward by 15 minutes and poll. An error that is not one delivery's own (PostgreSQL away) stops
 * claiming, lets the attempts in flight finish and fails the poll.
 */
export async function pollOnce(o: PollerOptions): Promise<PollResult> {
  const r = { attempted: 0, delivered: 0, retryScheduled: 0, failed: 0, cancelled: 0, parked: 0 };
  const cap = o.maxInFlightPerSubscription ?? 4;
  const reclaimMs = o.reclaimMs ?? 1000;
  const inFlight = new Map<string, number>();
  let total = 0;
  let failure: { err: unknown } | undefined;
  let settled: () => void = () => {};
  let drained = false; // the last claim found nothing more due
  for (;;) {
    const free = o.batchSize - total;
    // Claim when there is room: at once when idle or nothing was left last time, otherwise once a
    // quarter of the pool is free (not one claim per finished attempt).
    if (!failure && free > 0 && (total === 0 || drained || free >= Math.ceil(o.batchSize / 4))) {
      try {
        // This claim sees every delivery enqueued before it: a ring until now needs no other claim.
        o.doorbell?.take();
        const excluded = saturatedSubscriptions(inFlight, cap);
        const claim = await claimDue(o.db, o.now(), o.leaseMs, free, o.keyring, excluded);
        for (const q of claim.quarantined)
          o.logger.error('webhook_subscription_quarantined', {
            subscription_id: q.subscriptionId,
            account_id: q.accountId,
            reason: q.reason,
          });
        r.parked += claim.parked;
        const { start, release } = admitClaimed(claim.deliveries, inFlight, cap);
        await releaseClaims(
          o.db,
          release.map((d) => d.deliveryId),
        );
        const full = claim.claimed === free;
        // Nothing more due, unless in the subscriptions left out: those are claimed once they finish.
        drained = !full && !excluded.length;
        for (const d of start) {
          total++;
          inFlight.set(d.subscriptionId, (inFlight.get(d.subscriptionId) ?? 0) + 1);
          void deliverOne(o, d, r)
            .catch((err: unknown) => (failure ??= { err }))
            .finally(() => {
              total--;
              const n = (inFlight.get(d.subscriptionId) ?? 1) - 1;
              if (n) inFlight.set(d.subscriptionId, n);
              else inFlight.delete(d.subscriptionId);
              settled();
            });
        }
        // Claimed a full share with room left: claim again at once.
        if (full && o.batchSize - total > 0 && start.length) continue;
      } catch (err) {
        failure ??= { err };
      }
    }
    if (total === 0) {
      if (failure) throw failure.err;
      if (drained) return r;
      continue;
    }
    // Wait for an attempt to finish, for new deliveries (the doorbell), or for the reclaim interval:
    // what was enqueued meanwhile for other subscriptions goes out beside the slow ones.
    if (!failure && o.doorbell?.take()) continue;
    await new Promise<void>((resolve) => {
      let off = () => {};
      const done = () => {
        clearTimeout(timer);
        off();
        resolve();
      };
      const timer = failure ? undefined : setTimeout(done, reclaimMs);
      if (!failure && o.doorbell) off = o.doorbell.onRing(done);
      settled = done;
    });
    settled = () => {};
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
  const finishedAt = o.now();
  // Within half the lease: the claim must not expire (and the delivery go out again) meanwhile.
  const status = await writeRecord(
    () => recordAttempt(o.db, d, { attemptedAt, finishedAt, ...res }, o.retryDelaysMs),
    o.leaseMs / 2,
  );
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
