import { randomUUID } from 'node:crypto';
import type { Kysely, Transaction } from 'kysely';
import { ControlPlaneError } from './control-plane.js';
import { displayPrefix, mintToken } from './credentials.js';
import type { Database } from '@holdfast/postgres';
import {
  defaultSecretsKeyring,
  SecretUnreadableError,
  type SealedSecret,
  type SecretSealer,
  type SecretsKeyring,
} from '@holdfast/secrets';

/**
 * An outbound webhook subscription; the whsec_ secret is returned once for the receiver and stored
 * only sealed (`keyring`, default: this process's HOLDFAST_SECRETS_KEYS; the gateway seals to a public
 * key, `WebhookSealKey`). Its URL is checked against the outbound policy where it is entered (the CLI,
 * POST /v1/webhooks) and again before every delivery. `eventTypes`: what it receives (default
 * `campaign.sent`; the caller checks them, `subscriptionEventTypes` of @holdfast/domain).
 */
export async function createWebhookSubscription(
  db: Kysely<Database>,
  accountId: string,
  url: string,
  keyring: SecretSealer = defaultSecretsKeyring(),
  eventTypes: readonly string[] = ['campaign.sent'],
): Promise<{ id: string; secret: string; created_at: Date; event_types: string[] }> {
  try {
    new URL(url);
  } catch {
    throw new ControlPlaneError('invalid', `"${url}" is not a URL`);
  }
  return db.transaction().execute(async (trx) => {
    const acc = await trx
      .selectFrom('control.accounts')
      .select('id')
      .where('id', '=', accountId)
      .executeTakeFirst();
    if (!acc) throw new ControlPlaneError('not_found', `no account ${accountId}`);
    const secret = mintToken('webhook_secret');
    const id = randomUUID();
    const event_types = [...eventTypes];
    const row = await trx
      .insertInto('control.webhook_subscriptions')
      .values({ id, account_id: accountId, url, secret: null, event_types })
      .returning('created_at')
      .executeTakeFirstOrThrow();
    await insertSealedWebhookSecret(trx, id, secret, keyring);
    return { id, secret, created_at: row.created_at, event_types };
  });
}

/** Seals `secret` into a new control.webhook_secrets row of the subscription (inside `trx`). */
export async function insertSealedWebhookSecret(
  trx: Transaction<Database> | Kysely<Database>,
  subscriptionId: string,
  secret: string,
  keyring: SecretSealer,
): Promise<string> {
  const id = randomUUID();
  const s = keyring.seal(secret, id);
  await trx
    .insertInto('control.webhook_secrets')
    .values({
      id,
      subscription_id: subscriptionId,
      key_id: s.keyId,
      wrapped_key: s.wrappedKey,
      ciphertext: s.ciphertext,
      prefix: displayPrefix(secret),
    })
    .execute();
  return id;
}

/**
 * Rotates a subscription's signing secret: a new whsec_ secret now (returned in clear, once); every
 * secret still signing keeps signing for `graceSeconds` more, so receivers can switch without losing
 * a delivery (webhook-signature carries one signature per secret). One transaction, on the locked
 * subscription row, so two concurrent rotations do not interleave. With `accountId` (POST
 * /v1/webhooks/{id}/rotate-secret), another account's subscription is `not_found`.
 */
export async function rotateWebhookSecret(
  db: Kysely<Database>,
  subscriptionId: string,
  graceSeconds: number,
  keyring: SecretSealer,
  now = new Date(),
  accountId?: string,
): Promise<{ secret: string; previousExpiresAt: Date }> {
  return db.transaction().execute(async (trx) => {
    // The gateway (scoped to an account) may not read the legacy plain-text column; the dispatcher
    // seals what is left there at every start, so a subscription created over HTTP never has one.
    const sub = await trx
      .selectFrom('control.webhook_subscriptions')
      .select(['id', 'disabled_at'])
      .$if(accountId === undefined, (q) => q.select('secret'))
      .where('id', '=', subscriptionId)
      .$if(accountId !== undefined, (q) => q.where('account_id', '=', accountId!))
      .forUpdate()
      .executeTakeFirst();
    if (!sub || sub.disabled_at)
      throw new ControlPlaneError('not_found', `no active subscription ${subscriptionId}`);
    if (sub.secret) await sealOne(trx, subscriptionId, sub.secret, keyring);
    const previousExpiresAt = new Date(now.getTime() + graceSeconds * 1000);
    await trx
      .updateTable('control.webhook_secrets')
      .set({ expires_at: previousExpiresAt })
      .where('subscription_id', '=', subscriptionId)
      .where((eb) => eb.or([eb('expires_at', 'is', null), eb('expires_at', '>', previousExpiresAt)]))
      .execute();
    const secret = mintToken('webhook_secret');
    await insertSealedWebhookSecret(trx, subscriptionId, secret, keyring);
    return { secret, previousExpiresAt };
  });
}

async function sealOne(
  trx: Transaction<Database>,
  subscriptionId: string,
  plaintext: string,
  keyring: SecretSealer,
): Promise<void> {
  // Inserted before anything rotated in later, so it sorts as older (seq).
  await insertSealedWebhookSecret(trx, subscriptionId, plaintext, keyring);
  await trx
    .updateTable('control.webhook_subscriptions')
    .set({ secret: null })
    .where('id', '=', subscriptionId)
    .execute();
}

/** How many plain-text secrets are left from before secrets were sealed (`sealPlaintextWebhookSecrets` seals them). */
export async function countPlaintextWebhookSecrets(db: Kysely<Database>): Promise<number> {
  const { n } = await db
    .selectFrom('control.webhook_subscriptions')
    .select((eb) => eb.fn.countAll<number>().as('n'))
    .where('secret', 'is not', null)
    .executeTakeFirstOrThrow();
  return Number(n);
}

/**
 * Moves every plain-text secret left in control.webhook_subscriptions.secret (from before secrets were
 * sealed) into a sealed row and clears the column, one subscription per transaction. Idempotent.
 *
 * @returns how many secrets were sealed.
 */
export async function sealPlaintextWebhookSecrets(
  db: Kysely<Database>,
  keyring: SecretsKeyring,
): Promise<number> {
  const legacy = await db
    .selectFrom('control.webhook_subscriptions')
    .select('id')
    .where('secret', 'is not', null)
    .execute();
  let sealed = 0;
  for (const { id } of legacy) {
    sealed += await db.transaction().execute(async (trx) => {
      const row = await trx
        .selectFrom('control.webhook_subscriptions')
        .select('secret')
        .where('id', '=', id)
        .forUpdate()
        .executeTakeFirst();
      if (!row?.secret) return 0;
      await sealOne(trx, id, row.secret, keyring);
      return 1;
    });
  }
  return sealed;
}

/** The master key ids in use and how many data keys each wraps (webhook and provider secrets). */
export async function secretKeyUsage(db: Kysely<Database>): Promise<{ key_id: string; secrets: number }[]> {
  const rows = await db
    .selectFrom(
      db
        .selectFrom('control.webhook_secrets')
        .select('key_id')
        .unionAll(db.selectFrom('control.provider_secrets').select('key_id'))
        .as('s'),
    )
    .select((eb) => ['s.key_id', eb.fn.countAll<number>().as('n')])
    .groupBy('s.key_id')
    .orderBy('s.key_id')
    .execute();
  return rows.map((r) => ({ key_id: r.key_id, secrets: Number(r.n) }));
}

/**
 * Re-wraps every data key not wrapped by the current master key (after a new key was put first in
 * HOLDFAST_SECRETS_KEYS): the webhook signing secrets, then the providers' credentials (SMTP
 * passwords, API tokens). The secrets themselves are not re-encrypted: only their data keys change.
 * Afterwards the old master key can be removed from the configuration.
 *
 * @returns how many data keys were re-wrapped.
 */
export async function rewrapSecrets(db: Kysely<Database>, keyring: SecretsKeyring): Promise<number> {
  // Every master key in use must be configured before anything is rewritten: all or nothing.
  const missing = (await secretKeyUsage(db)).map((u) => u.key_id).filter((id) => !keyring.has(id));
  if (missing.length)
    throw new SecretUnreadableError(
      `no master key ${missing.map((id) => `"${id}"`).join(', ')} in HOLDFAST_SECRETS_KEYS`,
    );
  const rewrapped = (r: { key_id: string; wrapped_key: Buffer; ciphertext: Buffer }) => {
    const next = keyring.rewrap({ keyId: r.key_id, wrappedKey: r.wrapped_key, ciphertext: r.ciphertext });
    return { key_id: next.keyId, wrapped_key: next.wrappedKey };
  };
  const sealed = ['key_id', 'wrapped_key', 'ciphertext'] as const;
  // Each update is guarded on the old key id: a concurrent rewrap of the same row does no harm.
  const webhook = await db
    .selectFrom('control.webhook_secrets')
    .select(['id', ...sealed])
    .where('key_id', '<>', keyring.currentKeyId)
    .execute();
  for (const r of webhook)
    await db
      .updateTable('control.webhook_secrets')
      .set(rewrapped(r))
      .where('id', '=', r.id)
      .where('key_id', '=', r.key_id)
      .execute();
  const provider = await db
    .selectFrom('control.provider_secrets')
    .select(['account_id', 'provider', ...sealed])
    .where('key_id', '<>', keyring.currentKeyId)
    .execute();
  for (const r of provider)
    await db
      .updateTable('control.provider_secrets')
      .set(rewrapped(r))
      .where('account_id', '=', r.account_id)
      .where('provider', '=', r.provider)
      .where('key_id', '=', r.key_id)
      .execute();
  return webhook.length + provider.length;
}

/** A sealed secret row as read for signing. */
export interface SealedSecretRow extends SealedSecret {
  readonly id: string;
}

/** Opens the secrets that sign at `now`, newest first (the first is the current one). */
export function openSigningSecrets(rows: readonly SealedSecretRow[], keyring: SecretsKeyring): string[] {
  return rows.map((r) => keyring.open(r, r.id));
}
