import { sql, type Kysely } from 'kysely';

/**
 * Crypto-shredding (docs/privacy.md): schema `privacy` keeps the keys personal data in the log is
 * encrypted with, each sealed under the KEK ring HOLDFAST_PRIVACY_KEYS (envelope encryption as the
 * webhook secrets: `key_id`, `wrapped_key`, `ciphertext`). Destroying a subject's row forgets the
 * person: every record encrypted with it becomes unreadable, in Kafka and in every backup.
 */
// Frozen in time: never edit a migration that has run; add a new one.
// eslint-disable-next-line @typescript-eslint/no-explicit-any
export async function up(db: Kysely<any>): Promise<void> {
  await sql`
    create schema if not exists privacy;
    -- the account's blind-index key (HMAC of normalised identifiers); never destroyed
    create table privacy.account_keys (
      account_id uuid primary key,
      key_id text not null,
      wrapped_key bytea not null,
      ciphertext bytea not null,
      created_at timestamptz not null default now()
    );
    create index account_keys_key on privacy.account_keys (key_id);
    -- one data key per data subject (x:/e:/p:<blind index>, r:<event id>)
    create table privacy.subject_keys (
      account_id uuid not null,
      subject_id text not null,
      key_id text not null,
      wrapped_key bytea not null,
      ciphertext bytea not null,
      created_at timestamptz not null default now(),
      primary key (account_id, subject_id)
    );
    create index subject_keys_key on privacy.subject_keys (key_id);
    -- the subjects whose keys an erasure destroyed (never the identifiers themselves)
    create table privacy.erased_subjects (
      account_id uuid not null,
      subject_id text not null,
      erasure_id uuid not null,
      erased_at timestamptz not null default now(),
      primary key (account_id, subject_id, erasure_id)
    );
    -- bumped in the transaction of every destruction: caches of data keys drop theirs on change
    create table privacy.key_generation (
      id boolean primary key default true check (id),
      generation bigint not null
    );
    insert into privacy.key_generation (id, generation) values (true, 0);
    -- blind indexes of identifiers the merchant asked never to ingest again (erasure with suppress)
    create table privacy.suppressions (
      account_id uuid not null,
      identifier_index text not null,
      kind text not null check (kind in ('external_id', 'email', 'phone')),
      erasure_id uuid not null,
      created_at timestamptz not null default now(),
      primary key (account_id, kind, identifier_index)
    );
  `.execute(db);
}
