import { sql, type Kysely } from 'kysely';

/**
 * Real providers (docs/campaigns.md, "Providers"): a provider row says how it is reached (`kind`:
 * `smtp`, `twilio`, or `json` for the generic JSON endpoint of before) and its non-secret settings
 * (host, port, user, sender, TLS mode; account SID, sender number). The secret (SMTP password, API
 * auth token) is sealed like the webhook secrets: envelope encryption under HOLDFAST_SECRETS_KEYS,
 * the row's (account, provider) authenticated so a ciphertext moved to another row fails to open.
 */
// Frozen in time: never edit a migration that has run; add a new one.
// eslint-disable-next-line @typescript-eslint/no-explicit-any
export async function up(db: Kysely<any>): Promise<void> {
  await sql`
    alter table control.providers
      add column kind text not null default 'json' check (kind in ('json', 'smtp', 'twilio')),
      add column settings jsonb not null default '{}'::jsonb;
    create table control.provider_secrets (
      account_id uuid not null,
      provider text not null,
      key_id text not null,
      wrapped_key bytea not null,
      ciphertext bytea not null,
      updated_at timestamptz not null default now(),
      primary key (account_id, provider),
      foreign key (account_id, provider) references control.providers (account_id, provider) on delete cascade
    );
    create index provider_secrets_key on control.provider_secrets (key_id);
  `.execute(db);
}
