import { AMOUNT_SQL_TYPE } from '@holdfast/contracts';

// DDL of the tables the commerce projection owns. Written as functions of the schema name so that a
// rebuild can create them side by side in `read_models_next`. Column comments live in
// docs/read-models.md; the SQL here says only what PostgreSQL needs to enforce.

// Conversion into the account's reporting currency (docs/campaigns.md "Currency"): the projector
// stores the rate (conversionOn in packages/domain), PostgreSQL derives the amounts from it, rounded to
// the reporting currency's minor units, so they follow every merge (refunds, cancellations) by
// themselves. Rows stored before these columns existed read 'pending' (at par) until re-converted.
// Unbounded numeric: an amount at the column limit times a cross rate of thousands must not overflow.
const convertedSql = (column: string) => `round(${column} * fx_rate, fx_minor_units)`;
const FX_COLUMNS = [
  `reporting_currency text not null default 'USD'`,
  `fx_rate numeric not null default 1`,
  `fx_minor_units smallint not null default 2`,
  `fx_rate_date date`,
  `fx_status text not null default 'pending' check (fx_status in ('same', 'converted', 'unknown_currency', 'no_rate', 'pending'))`,
  `order_amount_reporting numeric generated always as (${convertedSql('order_amount')}) stored`,
  `refunded_amount_reporting numeric generated always as (${convertedSql('refunded_amount')}) stored`,
  `net_amount_reporting numeric generated always as
      (case when cancelled_at is null then ${convertedSql('order_amount')} - ${convertedSql('refunded_amount')} else 0 end) stored`,
];

/** orders: one row per (account, order_id), merged by the spec's order rules. */
export const ordersDdl = (s: string): string => `
  create table if not exists "${s}".orders (
    account_id uuid not null,
    order_id text not null,
    customer_id uuid,
    external_customer_id text,
    order_date timestamptz not null,
    order_amount ${AMOUNT_SQL_TYPE} not null,
    product_name text not null,
    email text,
    phone text,
    customer_name text,
    source text,
    order_channel text,
    currency text not null default 'USD',
    shipping_city text,
    shipping_state text,
    shipping_zip text,
    refunded_amount ${AMOUNT_SQL_TYPE} not null default 0,
    discount_total ${AMOUNT_SQL_TYPE},
    discount_pct numeric,
    discount_codes text[],
    cancelled_at timestamptz,
    net_amount ${AMOUNT_SQL_TYPE} generated always as
      (case when cancelled_at is null then order_amount - refunded_amount else 0 end) stored,
    first_seen_at timestamptz not null,
    updated_at timestamptz not null,
    acquisition_channel text,
    ${FX_COLUMNS.join(',\n    ')},
    primary key (account_id, order_id),
    constraint orders_refunded_not_negative check (refunded_amount >= 0)
  );
  -- Added after the first release: tables created before get the column here, and rows written
  -- before stay null until a rebuild. (No semicolons in these comments: the DDL is split on them.)
  alter table "${s}".orders add column if not exists acquisition_channel text;
  ${FX_COLUMNS.map((c) => `alter table "${s}".orders add column if not exists ${c}`).join(';\n  ')};
  create index if not exists orders_by_customer on "${s}".orders (account_id, customer_id, order_date);
  create index if not exists orders_by_date on "${s}".orders (account_id, order_date);`;

/** customers: one row per resolved identity. */
export const customersDdl = (s: string): string => `
  create table if not exists "${s}".customers (
    account_id uuid not null,
    customer_id uuid not null,
    external_id text,
    email text,
    phone text,
    name text,
    address_street text,
    address_city text,
    address_state text,
    address_zip text,
    address_country text,
    consent_marketing_email boolean not null default false,
    consent_sms boolean not null default false,
    consent_suppressed boolean not null default false,
    consent_bounced boolean not null default false,
    source_label text not null default 'custom-api',
    subscription_status text check (subscription_status in ('active', 'paused', 'cancelled')),
    subscription_started_at timestamptz,
    created_at timestamptz not null,
    updated_at timestamptz not null,
    primary key (account_id, customer_id)
  );
  create unique index if not exists customers_by_external_id on "${s}".customers (account_id, external_id)
    where external_id is not null;
  create index if not exists customers_by_email on "${s}".customers (account_id, email) where email is not null;
  create index if not exists customers_by_phone on "${s}".customers (account_id, phone) where phone is not null;
  create index if not exists customers_by_created_at on "${s}".customers (account_id, created_at);
  -- Added after the first release (appended, so every schema has the same column order): an opt-out
  -- the service recorded (unsubscribe, STOP) that a plain write cannot lift (mergeConsent, @holdfast/domain).
  alter table "${s}".customers add column if not exists consent_locked_email boolean not null default false;
  alter table "${s}".customers add column if not exists consent_locked_sms boolean not null default false;
  alter table "${s}".customers add column if not exists email_index text;
  alter table "${s}".customers add column if not exists phone_index text;
  create index if not exists customers_by_email_index on "${s}".customers (account_id, email_index)
    where email_index is not null;
  create index if not exists customers_by_phone_index on "${s}".customers (account_id, phone_index)
    where phone_index is not null;`;

/**
 * customer_subjects: every data subject whose key encrypted a record folded into a customer
 * (docs/privacy.md), so an erasure finds every key that ever encrypted that person's records.
 */
export const customerSubjectsDdl = (s: string): string => `
  create table if not exists "${s}".customer_subjects (
    account_id uuid not null,
    customer_id uuid not null,
    subject_id text not null,
    primary key (account_id, customer_id, subject_id)
  );
  -- An erasure finds the customer of an external id through its subject (x:<index>) without indexing
  -- every external id of the account.
  create index if not exists customer_subjects_by_subject on "${s}".customer_subjects (account_id, subject_id);`;

/** customer_events: the first event of each dedup key posted to POST /webhooks/custom-api. */
export const customerEventsDdl = (s: string): string => `
  create table if not exists "${s}".customer_events (
    account_id uuid not null,
    dedup_key text not null,
    event_id text not null,
    customer_id uuid not null,
    link_method text not null check (link_method in ('provider_id', 'email', 'phone', 'fuzzy', 'created')),
    is_new boolean not null,
    event_type text not null,
    received_at timestamptz not null,
    content_key text,
    primary key (account_id, dedup_key)
  );
  -- Added after the first release: tables created before get the column here (null: not comparable).
  alter table "${s}".customer_events add column if not exists content_key text;
  create index if not exists customer_events_by_event_id on "${s}".customer_events (event_id);
  create index if not exists customer_events_by_customer on "${s}".customer_events (account_id, customer_id, received_at);`;

/** zero_party_submissions: quiz and preference answers, linked to a customer. */
export const zeroPartySubmissionsDdl = (s: string): string => `
  create table if not exists "${s}".zero_party_submissions (
    account_id uuid not null,
    dedup_key text not null,
    event_id text not null,
    customer_id uuid not null,
    email text,
    external_customer_id text,
    interests text[] not null default '{}',
    attributes jsonb,
    source_label text,
    quiz_version text,
    completed_at timestamptz,
    received_at timestamptz not null,
    primary key (account_id, dedup_key)
  );
  create index if not exists zero_party_by_customer on "${s}".zero_party_submissions (account_id, customer_id);
  create index if not exists zero_party_by_received_at on "${s}".zero_party_submissions (account_id, received_at);`;
