import { sql, type Kysely } from 'kysely';

/**
 * Webhook signing secrets move out of `control.webhook_subscriptions.secret` (plain text) into
 * `control.webhook_secrets`, sealed (envelope encryption: see secrets-keyring.ts). A subscription may
 * have several: after a rotation the old one keeps signing until `expires_at`.
 *
 * SQL cannot seal (the master key is configuration, not data), so this migration only makes room:
 * `sealPlaintextWebhookSecrets` moves each remaining plain-text secret into a sealed row and clears the
 * column. The dispatcher runs it at start-up and `holdfast secrets rewrap` runs it on demand.
 */
// Frozen in time: never edit a migration that has run; add a new one.
// eslint-disable-next-line @typescript-eslint/no-explicit-any
export async function up(db: Kysely<any>): Promise<void> {
  await sql`
    create table control.webhook_secrets (
      id uuid primary key,
      -- insertion order: the newest secret of a subscription (highest seq) is the current one
      seq bigint generated always as identity,
      subscription_id uuid not null references control.webhook_subscriptions(id),
      -- id of the master key that wrapped the data key (HOLDFAST_SECRETS_KEYS)
      key_id text not null,
      -- the data key, AES-256-GCM under the master key: iv | tag | ciphertext
      wrapped_key bytea not null,
      -- the whsec_ secret, AES-256-GCM under the data key (the row id is authenticated data)
      ciphertext bytea not null,
      prefix text not null,
      created_at timestamptz not null default now(),
      -- set when rotated: it keeps signing until then (the grace window)
      expires_at timestamptz
    );
    create index webhook_secrets_subscription on control.webhook_secrets (subscription_id, seq desc);
    create index webhook_secrets_key on control.webhook_secrets (key_id);
    alter table control.webhook_subscriptions alter column secret drop not null;
  `.execute(db);
}
