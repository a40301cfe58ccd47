import { kyselyOn, rawQuery, type Database, type PoolClient } from '@holdfast/postgres';
import { openSigningSecrets } from '@holdfast/control-plane';
import type { SecretsKeyring } from '@holdfast/secrets';
import type { Kysely } from 'kysely';
import { parkedError, quarantineReason } from './quarantine.js';
import { nextAttemptAt } from './retry-schedule.js';

/** A delivery to create: one event for one subscription. */
export interface NewDelivery {
  readonly deliveryId: string;
  readonly accountId: string;
  readonly subscriptionId: string;
  readonly event: string;
  readonly sourceId: string;
  readonly body: string;
}

/** A due delivery a poller claimed, with where and how to send it. */
export interface ClaimedDelivery {
  readonly deliveryId: string;
  readonly accountId: string;
  readonly event: string;
  readonly body: string;
  /** Attempts made before this one. */
  readonly attempts: number;
  readonly subscriptionId: string;
  /** null when the subscription was deleted or disabled since: the delivery is cancelled. */
  readonly url: string | null;
  /** The secrets that sign now, newest first (several during a rotation's grace window). */
  readonly secrets: readonly string[];
}

/** What one attempt observed. */
export interface AttemptOutcome {
  readonly attemptedAt: Date;
  readonly finishedAt: Date;
  readonly statusCode: number | null;
  readonly error: string | null;
  readonly durationMs: number;
  readonly succeeded: boolean;
}

/** Active subscriptions (id by account) of the given accounts that chose `eventType`. */
export async function activeSubscriptions(
  c: PoolClient,
  accountIds: readonly string[],
  eventType: string,
): Promise<Map<string, string[]>> {
  const byAccount = new Map<string, string[]>();
  if (!accountIds.length) return byAccount;
  const rows = await kyselyOn<Database>(c)
    .selectFrom('control.webhook_subscriptions')
    .select(['id', 'account_id'])
    .where('account_id', 'in', accountIds)
    .where('disabled_at', 'is', null)
    .where((eb) => eb(eb.val(eventType), '=', eb.fn.any('event_types')))
    .orderBy('created_at')
    .orderBy('id')
    .execute();
  for (const r of rows) byAccount.set(r.account_id, [...(byAccount.get(r.account_id) ?? []), r.id]);
  return byAccount;
}

/**
 * Inserts deliveries due at `now`; a delivery that exists already (same id) is left alone. Raw: one
 * unnest of column arrays, seven parameters however many deliveries (kysely's multi-row values would
 * take seven per delivery, up to pg's 65,535).
 */
export async function insertDeliveries(
  c: PoolClient,
  list: readonly NewDelivery[],
  now: Date,
): Promise<number> {
  if (!list.length) return 0;
  const res = await rawQuery(
    c,
    'delivery-store.insert-deliveries',
    `insert into dispatcher.deliveries
       (delivery_id, account_id, subscription_id, event, source_id, body, status, attempts, next_attempt_at, created_at)
     select d, a, s, e, src, b, 'pending', 0, $7, $7
       from unnest($1::uuid[], $2::uuid[], $3::uuid[], $4::text[], $5::text[], $6::text[]) as t(d, a, s, e, src, b)
     on conflict (delivery_id) do nothing`,
    [
      list.map((d) => d.deliveryId),
      list.map((d) => d.accountId),
      list.map((d) => d.subscriptionId),
      list.map((d) => d.event),
      list.map((d) => d.sourceId),
      list.map((d) => d.body),
      now,
    ],
  );
  return res.rowCount ?? 0;
}

/** A subscription set aside: its deliveries are parked until an operator lifts the quarantine. */
export interface QuarantinedSubscription {
  readonly subscriptionId: string;
  readonly accountId: string;
  readonly reason: string;
}

/** What one claim took: the deliveries to send, and the subscriptions it quarantined just now. */
export interface Claim {
  readonly deliveries: ClaimedDelivery[];
  /** Subscriptions quarantined by this claim (not those quarantined before). */
  readonly quarantined: QuarantinedSubscription[];
  /** Rows claimed (sent, cancelled or parked): fewer than the limit means nothing more is due. */
  readonly claimed: number;
  /** Deliveries parked (not sent) because their subscription is quarantined. */
  readonly parked: number;
}

/**
 * Claims up to `limit` deliveries due at `now` for `leaseMs` (skip locked: several dispatcher
 * processes share the work without taking the same row), with their URL and their signing secrets
 * (opened with `keyring`, subscription by subscription). A subscription whose secrets cannot be opened
 * (`quarantineReason`) is quarantined there and then, and the claimed deliveries of quarantined
 * subscriptions are parked rather than returned: one poison subscription never fails the claim of
 * everyone else's deliveries. Any other error (PostgreSQL away) fails the claim as before.
 */
export async function claimDue(
  db: Kysely<Database>,
  now: Date,
  leaseMs: number,
  limit: number,
  keyring: SecretsKeyring,
  /** Subscriptions whose deliveries this claim leaves alone (at their in-flight cap here). */
  exclude: readonly string[] = [],
): Promise<Claim> {
  const rows = await db
    .with('due', (qb) =>
      qb
        .selectFrom('dispatcher.deliveries')
        .select('delivery_id')
        .where('status', '=', 'pending')
        .where('next_attempt_at', '<=', now)
        .where((eb) => eb.or([eb('lease_until', 'is', null), eb('lease_until', '<=', now)]))
        .$if(exclude.length > 0, (qb) => qb.where('subscription_id', 'not in', exclude))
        .orderBy('next_attempt_at')
        .orderBy('delivery_id')
        .limit(limit)
        .forUpdate()
        .skipLocked(),
    )
    .with('claimed', (qb) =>
      qb
        .updateTable('dispatcher.deliveries as d')
        .set({ lease_until: new Date(now.getTime() + leaseMs) })
        .from('due')
        .whereRef('d.delivery_id', '=', 'due.delivery_id')
        .returning(['d.delivery_id', 'd.account_id', 'd.subscription_id', 'd.event', 'd.body', 'd.attempts']),
    )
    .selectFrom('claimed as c')
    .leftJoin('control.webhook_subscriptions as s', 's.id', 'c.subscription_id')
    .leftJoin('dispatcher.subscription_quarantine as q', 'q.subscription_id', 'c.subscription_id')
    .select((eb) => [
      'c.delivery_id',
      'c.account_id',
      'c.subscription_id',
      'c.event',
      'c.body',
      'c.attempts',
      eb.case().when('s.disabled_at', 'is', null).then(eb.ref('s.url')).end().as('url'),
      'q.reason as quarantine_reason',
    ])
    .execute();
  const quarantine = new Map<string, QuarantinedSubscription>();
  for (const r of rows)
    if (r.url && r.quarantine_reason !== null)
      quarantine.set(r.subscription_id, {
        subscriptionId: r.subscription_id,
        accountId: r.account_id,
        reason: r.quarantine_reason,
      });
  const live = rows.filter((r) => r.url && !quarantine.has(r.subscription_id));
  const secrets = await signingSecrets(db, [...new Set(live.map((r) => r.subscription_id))], now, keyring);
  const quarantined: QuarantinedSubscription[] = [];
  for (const r of live) {
    const s = secrets.get(r.subscription_id);
    if (!s || 'secrets' in s || quarantine.has(r.subscription_id)) continue;
    const q = { subscriptionId: r.subscription_id, accountId: r.account_id, reason: s.quarantine };
    quarantine.set(r.subscription_id, q);
    quarantined.push(q);
  }
  if (quarantined.length)
    await db
      .insertInto('dispatcher.subscription_quarantine')
      .values(
        quarantined.map((q) => ({
          subscription_id: q.subscriptionId,
          account_id: q.accountId,
          reason: q.reason,
          since: now,
        })),
      )
      .onConflict((oc) => oc.column('subscription_id').doNothing())
      .execute();
  let parked = 0;
  for (const q of quarantine.values()) parked += await parkDeliveries(db, q);
  return {
    deliveries: rows
      .filter((r) => !quarantine.has(r.subscription_id))
      .map((r) => {
        const s = secrets.get(r.subscription_id);
        return {
          deliveryId: r.delivery_id,
          accountId: r.account_id,
          subscriptionId: r.subscription_id,
          event: r.event,
          body: r.body,
          attempts: r.attempts,
          url: r.url,
          secrets: s && 'secrets' in s ? s.secrets : [],
        };
      }),
    claimed: rows.length,
    quarantined,
    parked,
  };
}

/**
 * Parks the pending deliveries of a quarantined subscription: no due time (no poller claims them, no
 * attempt is made or counted), `last_error` says why. Lifting the quarantine makes them due again.
 */
async function parkDeliveries(db: Kysely<Database>, q: QuarantinedSubscription): Promise<number> {
  const res = await db
    .updateTable('dispatcher.deliveries')
    .set({ next_attempt_at: null, lease_until: null, last_error: parkedError(q.reason) })
    .where('subscription_id', '=', q.subscriptionId)
    .where('status', '=', 'pending')
    .where('next_attempt_at', 'is not', null)
    .executeTakeFirst();
  return Number(res.numUpdatedRows);
}

/**
 * The opened signing secrets of each subscription at `now`, newest first; or, for a subscription whose
 * secrets cannot be opened for a reason of its own, why it must be quarantined.
 */
async function signingSecrets(
  db: Kysely<Database>,
  subscriptionIds: readonly string[],
  now: Date,
  keyring: SecretsKeyring,
): Promise<Map<string, { secrets: string[] } | { quarantine: string }>> {
  if (!subscriptionIds.length) return new Map();
  const rows = await db
    .selectFrom('control.webhook_secrets')
    .select(['id', 'subscription_id', 'key_id', 'wrapped_key', 'ciphertext'])
    .where('subscription_id', 'in', subscriptionIds)
    .where((eb) => eb.or([eb('expires_at', 'is', null), eb('expires_at', '>', now)]))
    .orderBy('subscription_id')
    .orderBy('seq', 'desc')
    .execute();
  const out = new Map<string, { secrets: string[] } | { quarantine: string }>();
  for (const id of subscriptionIds) {
    const mine = rows.filter((r) => r.subscription_id === id);
    try {
      out.set(id, {
        secrets: openSigningSecrets(
          mine.map((r) => ({
            id: r.id,
            keyId: r.key_id,
            wrappedKey: r.wrapped_key,
            ciphertext: r.ciphertext,
          })),
          keyring,
        ),
      });
    } catch (err) {
      const reason = quarantineReason(err);
      if (reason === null) throw err;
      out.set(id, { quarantine: reason });
    }
  }
  return out;
}

/** Gives claimed deliveries back unsent: due as before, claimable again at once. */
export async function releaseClaims(db: Kysely<Database>, deliveryIds: readonly string[]): Promise<void> {
  if (!deliveryIds.length) return;
  await db
    .updateTable('dispatcher.deliveries')
    .set({ lease_until: null })
    .where('delivery_id', 'in', deliveryIds)
    .where('status', '=', 'pending')
    .execute();
}

/** Marks a claimed delivery whose subscription is gone: nothing is sent, nothing retried. */
export async function cancelDelivery(db: Kysely<Database>, deliveryId: string): Promise<void> {
  await db
    .updateTable('dispatcher.deliveries')
    .set({
      status: 'cancelled',
      next_attempt_at: null,
      lease_until: null,
      last_error: 'subscription_disabled',
    })
    .where('delivery_id', '=', deliveryId)
    .where('status', '=', 'pending')
    .execute();
}

/**
 * Records attempt number `attempts + 1` and moves the delivery on: delivered, due again after the
 * schedule's wait, or failed for good. Guarded on the attempt count, so a poller whose lease expired
 * mid-attempt cannot record the same attempt twice.
 *
 * @returns the new status, or null when another poller recorded this attempt first.
 */
export async function recordAttempt(
  db: Kysely<Database>,
  d: ClaimedDelivery,
  o: AttemptOutcome,
  delaysMs?: readonly number[],
): Promise<'delivered' | 'pending' | 'failed' | null> {
  const attempt = d.attempts + 1;
  const next = o.succeeded ? null : nextAttemptAt(attempt, o.finishedAt, delaysMs);
  const status = o.succeeded ? 'delivered' : next ? 'pending' : 'failed';
  return db.transaction().execute(async (trx) => {
    const upd = await trx
      .updateTable('dispatcher.deliveries')
      .set({
        attempts: attempt,
        status,
        next_attempt_at: next,
        lease_until: null,
        delivered_at: o.succeeded ? o.finishedAt : null,
        last_status_code: o.statusCode,
        last_error: o.error,
      })
      .where('delivery_id', '=', d.deliveryId)
      .where('attempts', '=', d.attempts)
      .where('status', '=', 'pending')
      .executeTakeFirst();
    if (!upd.numUpdatedRows) return null;
    await trx
      .insertInto('dispatcher.delivery_attempts')
      .values({
        delivery_id: d.deliveryId,
        attempt,
        attempted_at: o.attemptedAt,
        succeeded: o.succeeded,
        status_code: o.statusCode,
        error: o.error,
        duration_ms: Math.round(o.durationMs),
      })
      .execute();
    return status;
  });
}
