import type { Kysely } from 'kysely';
import { ControlPlaneError } from '@holdfast/control-plane';
import type { Database, DeliveryStatus } from '@holdfast/postgres';

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
  readonly status: DeliveryStatus;
  readonly attempts: number;
  readonly created_at: Date;
  readonly delivered_at: Date | null;
  readonly next_attempt_at: Date | null;
  readonly last_status_code: number | null;
  readonly last_error: string | null;
  readonly attempt_log: DeliveryAttemptListing[];
}

/**
 * Whose subscription, for the routes of one account (/v1/webhooks): with it, another account's
 * subscription, or one removed, is `not_found` (404), as if it did not exist.
 */
export interface SubscriptionScope {
  readonly accountId?: string;
}

async function requireSubscription(
  db: Kysely<Database>,
  subscriptionId: string,
  scope: SubscriptionScope = {},
): Promise<void> {
  const s = await db
    .selectFrom('control.webhook_subscriptions')
    .select('id')
    .where('id', '=', subscriptionId)
    .$if(scope.accountId !== undefined, (q) =>
      q.where('account_id', '=', scope.accountId!).where('disabled_at', 'is', null),
    )
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
  {
    status,
    limit = 50,
    accountId,
  }: { status?: DeliveryListing['status']; limit?: number } & SubscriptionScope = {},
): Promise<DeliveryListing[]> {
  await requireSubscription(db, subscriptionId, { accountId });
  let listed = db
    .selectFrom('dispatcher.deliveries')
    .select([
      'delivery_id',
      'event',
      'source_id as tracking_id',
      'status',
      'attempts',
      'created_at',
      'delivered_at',
      'next_attempt_at',
      'last_status_code',
      'last_error',
    ])
    .where('subscription_id', '=', subscriptionId)
    .orderBy('created_at', 'desc')
    .orderBy('delivery_id')
    .limit(limit);
  if (status) listed = listed.where('status', '=', status);
  const rows = await listed.execute();
  if (!rows.length) return [];
  const attempts = await db
    .selectFrom('dispatcher.delivery_attempts')
    .select(['delivery_id', 'attempt', 'attempted_at', 'succeeded', 'status_code', 'error', 'duration_ms'])
    .where(
      'delivery_id',
      'in',
      rows.map((r) => r.delivery_id),
    )
    .orderBy('delivery_id')
    .orderBy('attempt')
    .execute();
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
  target: { readonly subscriptionId: string; readonly deliveryId?: string } & SubscriptionScope,
  now = new Date(),
): Promise<string[]> {
  await requireSubscription(db, target.subscriptionId, target);
  let failed = db
    .updateTable('dispatcher.deliveries')
    .set({ status: 'pending', next_attempt_at: now, lease_until: null })
    .where('subscription_id', '=', target.subscriptionId)
    .where('status', '=', 'failed');
  if (target.deliveryId) failed = failed.where('delivery_id', '=', target.deliveryId);
  const rows = await failed.returning('delivery_id').execute();
  if (target.deliveryId && !rows.length) {
    // Told apart for the HTTP answer: no such delivery is a 404, one that is not failed a 409.
    const exists = await db
      .selectFrom('dispatcher.deliveries')
      .select('status')
      .where('subscription_id', '=', target.subscriptionId)
      .where('delivery_id', '=', target.deliveryId)
      .executeTakeFirst();
    throw new ControlPlaneError(
      exists ? 'conflict' : 'not_found',
      exists
        ? `delivery ${target.deliveryId} is ${exists.status}: only failed deliveries can be redelivered`
        : `no failed delivery ${target.deliveryId} of subscription ${target.subscriptionId}`,
    );
  }
  return rows.map((r) => r.delivery_id).sort();
}

/** A subscription the dispatcher quarantined, as the operator sees it. */
export interface QuarantineListing {
  readonly subscription_id: string;
  readonly account_id: string;
  readonly reason: string;
  readonly since: Date;
}

/** The quarantined subscriptions, oldest first (of one account when `accountId` is given). */
export async function listQuarantined(
  db: Kysely<Database>,
  accountId?: string,
): Promise<QuarantineListing[]> {
  let q = db
    .selectFrom('dispatcher.subscription_quarantine')
    .select(['subscription_id', 'account_id', 'reason', 'since'])
    .orderBy('since')
    .orderBy('subscription_id');
  if (accountId) q = q.where('account_id', '=', accountId);
  return q.execute();
}

/**
 * Lifts the quarantine of a subscription (fix the cause first: e.g. put the missing master key back
 * in HOLDFAST_SECRETS_KEYS): its parked deliveries are due at `now` and the dispatcher sends them at
 * its next poll. Should the cause remain, the next claim quarantines it again.
 *
 * @returns the quarantine lifted and how many deliveries were made due.
 */
export async function unquarantineSubscription(
  db: Kysely<Database>,
  subscriptionId: string,
  now = new Date(),
): Promise<{ lifted: QuarantineListing; resumed: number }> {
  await requireSubscription(db, subscriptionId);
  return db.transaction().execute(async (trx) => {
    const lifted = await trx
      .deleteFrom('dispatcher.subscription_quarantine')
      .where('subscription_id', '=', subscriptionId)
      .returning(['subscription_id', 'account_id', 'reason', 'since'])
      .executeTakeFirst();
    if (!lifted)
      throw new ControlPlaneError('not_found', `subscription ${subscriptionId} is not quarantined`);
    const resumed = await trx
      .updateTable('dispatcher.deliveries')
      .set({ next_attempt_at: now, lease_until: null, last_error: null })
      .where('subscription_id', '=', subscriptionId)
      .where('status', '=', 'pending')
      .where('next_attempt_at', 'is', null)
      .executeTakeFirst();
    return { lifted, resumed: Number(resumed.numUpdatedRows) };
  });
}
