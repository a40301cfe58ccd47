import {
  openSigningSecrets,
  withTransaction,
  type Pool,
  type PoolClient,
  type SecretsKeyring,
} from '@holdfast/db';
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

/** Active subscriptions (id by account) of the given accounts. */
export async function activeSubscriptions(
  c: PoolClient,
  accountIds: readonly string[],
): Promise<Map<string, string[]>> {
  const { rows } = await c.query<{ id: string; account_id: string }>(
    `select id, account_id from control.webhook_subscriptions
      where account_id = any($1::uuid[]) and disabled_at is null order by created_at, id`,
    [accountIds],
  );
  const byAccount = new Map<string, string[]>();
  for (const r of rows) byAccount.set(r.account_id, [...(byAccount.get(r.account_id) ?? []), r.id]);
  return byAccount;
}

/** Inserts deliveries due at `now`; a delivery that exists already (same id) is left alone. */
export async function insertDeliveries(
  c: PoolClient,
  list: readonly NewDelivery[],
  now: Date,
): Promise<number> {
  if (!list.length) return 0;
  const res = await c.query(
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

/**
 * Claims up to `limit` deliveries due at `now` for `leaseMs` (skip locked: several dispatcher
 * processes share the work without taking the same row), with their URL and their signing secrets
 * (opened with `keyring`).
 */
export async function claimDue(
  pool: Pool,
  now: Date,
  leaseMs: number,
  limit: number,
  keyring: SecretsKeyring,
): Promise<ClaimedDelivery[]> {
  const { rows } = await pool.query<{
    delivery_id: string;
    account_id: string;
    subscription_id: string;
    event: string;
    body: string;
    attempts: number;
    url: string | null;
  }>(
    `with due as (
       select delivery_id from dispatcher.deliveries
        where status = 'pending' and next_attempt_at <= $1 and (lease_until is null or lease_until <= $1)
        order by next_attempt_at, delivery_id
        limit $3
        for update skip locked),
     claimed as (
       update dispatcher.deliveries d set lease_until = $2 from due
        where d.delivery_id = due.delivery_id
       returning d.delivery_id, d.account_id, d.subscription_id, d.event, d.body, d.attempts)
     select c.delivery_id, c.account_id, c.subscription_id, c.event, c.body, c.attempts,
            case when s.disabled_at is null then s.url end as url
       from claimed c left join control.webhook_subscriptions s on s.id = c.subscription_id`,
    [now, new Date(now.getTime() + leaseMs), limit],
  );
  const secrets = await signingSecrets(pool, [...new Set(rows.map((r) => r.subscription_id))], now, keyring);
  return rows.map((r) => ({
    deliveryId: r.delivery_id,
    accountId: r.account_id,
    subscriptionId: r.subscription_id,
    event: r.event,
    body: r.body,
    attempts: r.attempts,
    url: r.url,
    secrets: secrets.get(r.subscription_id) ?? [],
  }));
}

/** The opened signing secrets of each subscription at `now`, newest first. */
async function signingSecrets(
  pool: Pool,
  subscriptionIds: readonly string[],
  now: Date,
  keyring: SecretsKeyring,
): Promise<Map<string, string[]>> {
  if (!subscriptionIds.length) return new Map();
  const { rows } = await pool.query<{
    id: string;
    subscription_id: string;
    key_id: string;
    wrapped_key: Buffer;
    ciphertext: Buffer;
  }>(
    `select id, subscription_id, key_id, wrapped_key, ciphertext from control.webhook_secrets
      where subscription_id = any($1::uuid[]) and (expires_at is null or expires_at > $2)
      order by subscription_id, seq desc`,
    [subscriptionIds, now],
  );
  const out = new Map<string, string[]>();
  for (const id of subscriptionIds) {
    const mine = rows.filter((r) => r.subscription_id === id);
    out.set(
      id,
      openSigningSecrets(
        mine.map((r) => ({ id: r.id, keyId: r.key_id, wrappedKey: r.wrapped_key, ciphertext: r.ciphertext })),
        keyring,
      ),
    );
  }
  return out;
}

/** Marks a claimed delivery whose subscription is gone: nothing is sent, nothing retried. */
export async function cancelDelivery(pool: Pool, deliveryId: string): Promise<void> {
  await pool.query(
    `update dispatcher.deliveries set status = 'cancelled', next_attempt_at = null, lease_until = null,
            last_error = 'subscription_disabled'
      where delivery_id = $1 and status = 'pending'`,
    [deliveryId],
  );
}

/**
 * Records attempt number `attempts + 1` and moves the delivery on: delivered, due again after the
 * schedule's wait, or failed for good. Guarded on the attempt count, so a poller whose lease expired
 * mid-attempt cannot record the same attempt twice.
 *
 * @returns the new status, or null when another poller recorded this attempt first.
 */
export async function recordAttempt(
  pool: Pool,
  d: ClaimedDelivery,
  o: AttemptOutcome,
  delaysMs?: readonly number[],
): Promise<'delivered' | 'pending' | 'failed' | null> {
  const attempt = d.attempts + 1;
  const next = o.succeeded ? null : nextAttemptAt(attempt, o.finishedAt, delaysMs);
  const status = o.succeeded ? 'delivered' : next ? 'pending' : 'failed';
  return withTransaction(pool, async (client) => {
    const upd = await client.query(
      `update dispatcher.deliveries
        set attempts = $2, status = $3, next_attempt_at = $4, lease_until = null,
            delivered_at = $5, last_status_code = $6, last_error = $7
      where delivery_id = $1 and attempts = $8 and status = 'pending'`,
      [
        d.deliveryId,
        attempt,
        status,
        next,
        o.succeeded ? o.finishedAt : null,
        o.statusCode,
        o.error,
        d.attempts,
      ],
    );
    if (!upd.rowCount) return null;
    await client.query(
      `insert into dispatcher.delivery_attempts
       (delivery_id, attempt, attempted_at, succeeded, status_code, error, duration_ms)
     values ($1, $2, $3, $4, $5, $6, $7)`,
      [d.deliveryId, attempt, o.attemptedAt, o.succeeded, o.statusCode, o.error, Math.round(o.durationMs)],
    );
    return status;
  });
}
