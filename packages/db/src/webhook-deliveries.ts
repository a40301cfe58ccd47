import { sql, type Kysely } from 'kysely';
import { ControlPlaneError } from './control-plane.js';
import type { Database } from './schema.js';

/** One attempt of a delivery, as the operator sees it. */
export interface DeliveryAttemptListing {
  readonly attempt: number;
  readonly attempted_at: Date;
  readonly succeeded: boolean;
  readonly status_code: number | null;
  readonly error: string | null;
  readonly duration_ms: number;
}

/** A delivery of a subscription with its attempt log (schema `dispatcher`, written by the dispatcher). */
export interface DeliveryListing {
  readonly delivery_id: string;
  readonly event: string;
  readonly tracking_id: string;
  readonly status: 'pending' | 'delivered' | 'failed' | 'cancelled';
  readonly attempts: number;
  readonly created_at: Date;
  readonly delivered_at: Date | null;
  readonly next_attempt_at: Date | null;
  readonly last_status_code: number | null;
  readonly last_error: string | null;
  readonly attempt_log: DeliveryAttemptListing[];
}

async function requireSubscription(db: Kysely<Database>, subscriptionId: string): Promise<void> {
  const s = await db
    .selectFrom('control.webhook_subscriptions')
    .select('id')
    .where('id', '=', subscriptionId)
    .executeTakeFirst();
  if (!s) throw new ControlPlaneError('not_found', `no subscription ${subscriptionId}`);
}

/**
 * The deliveries of a subscription, newest first, each with its attempts (the dispatcher's tables
 * must exist: a dispatcher has started against this database once).
 */
export async function listDeliveries(
  db: Kysely<Database>,
  subscriptionId: string,
  { status, limit = 50 }: { status?: DeliveryListing['status']; limit?: number } = {},
): Promise<DeliveryListing[]> {
  await requireSubscription(db, subscriptionId);
  const { rows } = await sql<Omit<DeliveryListing, 'attempt_log'>>`
    select delivery_id, event, source_id as tracking_id, status, attempts, created_at, delivered_at,
           next_attempt_at, last_status_code, last_error
      from dispatcher.deliveries
     where subscription_id = ${subscriptionId} and (${status ?? null}::text is null or status = ${status ?? null})
     order by created_at desc, delivery_id
     limit ${limit}`.execute(db);
  if (!rows.length) return [];
  const { rows: attempts } = await sql<DeliveryAttemptListing & { delivery_id: string }>`
    select delivery_id, attempt, attempted_at, succeeded, status_code, error, duration_ms
      from dispatcher.delivery_attempts
     where delivery_id = any(${rows.map((r) => r.delivery_id)}::uuid[])
     order by delivery_id, attempt`.execute(db);
  return rows.map((r) => ({
    ...r,
    attempt_log: attempts.filter((a) => a.delivery_id === r.delivery_id).map(({ delivery_id: _, ...a }) => a),
  }));
}

/**
 * Schedules failed deliveries for one more attempt, due at `now` (the dispatcher's poller picks them
 * up within its poll interval). Either one delivery (`deliveryId`, which must be failed) or every
 * failed delivery of the subscription. A redelivery is a single attempt with the same delivery id
 * and body; if it fails too the delivery is failed again (the spec's three retries were spent).
 *
 * @returns the ids scheduled.
 */
export async function redeliver(
  db: Kysely<Database>,
  target: { readonly subscriptionId: string; readonly deliveryId?: string },
  now = new Date(),
): Promise<string[]> {
  await requireSubscription(db, target.subscriptionId);
  const { rows } = await sql<{ delivery_id: string }>`
    update dispatcher.deliveries set status = 'pending', next_attempt_at = ${now}, lease_until = null
     where subscription_id = ${target.subscriptionId} and status = 'failed'
       and (${target.deliveryId ?? null}::uuid is null or delivery_id = ${target.deliveryId ?? null})
    returning delivery_id`.execute(db);
  if (target.deliveryId && !rows.length)
    throw new ControlPlaneError(
      'not_found',
      `no failed delivery ${target.deliveryId} of subscription ${target.subscriptionId}`,
    );
  return rows.map((r) => r.delivery_id).sort();
}
