import { sql, type Kysely } from 'kysely';

/**
 * No master key at the public edge (docs/security.md): the SMS provider's auth token is kept a second
 * time, sealed under HOLDFAST_INBOUND_KEYS, one row per SMS provider, so the gateway checks the
 * signature of the inbound STOP webhook with that token only, and never opens control.provider_secrets
 * (the SMTP password and the other secrets, sealed under the master keys). Rows of providers connected
 * before this migration are filled by `holdfast secrets rewrap` (it holds both keys).
 */
// Frozen in time: never edit a migration that has run; add a new one.
// eslint-disable-next-line @typescript-eslint/no-explicit-any
export async function up(db: Kysely<any>): Promise<void> {
  await sql`
    create table control.provider_inbound_secrets (
      account_id uuid not null,
      provider text not null,
      key_id text not null,
      wrapped_key bytea not null,
      ciphertext bytea not null,
      updated_at timestamptz not null default now(),
      primary key (account_id, provider),
      foreign key (account_id, provider) references control.providers (account_id, provider) on delete cascade
    );
    create index provider_inbound_secrets_key on control.provider_inbound_secrets (key_id);
  `.execute(db);
}
