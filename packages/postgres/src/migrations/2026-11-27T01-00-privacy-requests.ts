import { sql, type Kysely } from 'kysely';

/**
 * Erasure and access requests (docs/privacy.md, "Erasure and access requests"). A request names a
 * person by the BLIND INDEXES of their identifiers only (never the email or phone themselves): the
 * gateway or the CLI normalises and indexes them with the account's index key before the row exists.
 * The projector process runs them (`@holdfast/privacy-requests`). An export's document holds
 * decrypted personal data: it is sealed under the KEK ring like the keys, and deleted with its row
 * when it expires (7 days).
 */
// Frozen in time: never edit a migration that has run; add a new one.
// eslint-disable-next-line @typescript-eslint/no-explicit-any
export async function up(db: Kysely<any>): Promise<void> {
  await sql`
    create schema if not exists privacy;
    create table privacy.erasure_requests (
      id uuid primary key,
      account_id uuid not null,
      external_id_index text,
      email_index text,
      phone_index text,
      suppress boolean not null default false,
      idempotency_key text,
      requested_by text not null check (requested_by in ('api', 'cli')),
      key_id text,
      status text not null check (status in ('queued', 'running', 'done', 'failed')),
      attempts integer not null default 0,
      counters jsonb,
      reason text,
      requested_at timestamptz not null,
      started_at timestamptz,
      finished_at timestamptz,
      check (coalesce(external_id_index, email_index, phone_index) is not null)
    );
    create unique index erasure_requests_idempotency_key
      on privacy.erasure_requests (account_id, idempotency_key) where idempotency_key is not null;
    create index erasure_requests_by_person
      on privacy.erasure_requests (account_id, external_id_index, email_index, phone_index);
    create index erasure_requests_open on privacy.erasure_requests (requested_at)
      where status in ('queued', 'running');

    create table privacy.person_exports (
      id uuid primary key,
      account_id uuid not null,
      external_id_index text,
      email_index text,
      phone_index text,
      idempotency_key text,
      requested_by text not null check (requested_by in ('api', 'cli')),
      key_id text,
      status text not null check (status in ('queued', 'running', 'done', 'failed')),
      attempts integer not null default 0,
      reason text,
      -- the JSON document, sealed under HOLDFAST_PRIVACY_KEYS (context: the export's row)
      document_key_id text,
      document_wrapped_key bytea,
      document_ciphertext bytea,
      requested_at timestamptz not null,
      started_at timestamptz,
      finished_at timestamptz,
      expires_at timestamptz not null,
      check (coalesce(external_id_index, email_index, phone_index) is not null)
    );
    create unique index person_exports_idempotency_key
      on privacy.person_exports (account_id, idempotency_key) where idempotency_key is not null;
    create index person_exports_open on privacy.person_exports (requested_at)
      where status in ('queued', 'running');
    create index person_exports_expiry on privacy.person_exports (expires_at);
  `.execute(db);
}
