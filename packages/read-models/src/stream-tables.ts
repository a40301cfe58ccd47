// DDL of the tables fed by one stream each, and of the dead letters every projection shares.

export const accountSettingsDdl = (s: string): string => `
  create table if not exists "${s}".account_settings (
    account_id uuid primary key,
    store_timezone text not null,
    updated_at timestamptz not null
  );`;

/** ingest_batches: read by the gateway (GET /ingest/batches, latest first), purged after 90 days. */
export const ingestBatchesDdl = (s: string): string => `
  create table if not exists "${s}".ingest_batches (
    batch_id text primary key,
    account_id uuid not null,
    endpoint text not null,
    dry_run boolean not null,
    status text not null check (status in ('accepted', 'rejected', 'error', 'queued')),
    http_status integer not null,
    received integer not null,
    accepted integer not null,
    dropped integer not null,
    error_codes text[] not null default '{}',
    warning_codes text[] not null default '{}',
    errors jsonb,
    duration_ms integer not null,
    sync_task_id text,
    key_id text,
    request_id text,
    received_at timestamptz not null
  );
  create index if not exists ingest_batches_by_account on "${s}".ingest_batches (account_id, received_at desc);`;

/**
 * pixel_events: browser events. `pixel_events_by_received` lets the retention pass delete by
 * received_at (HOLDFAST_PIXEL_RETENTION_DAYS) without reading the whole table.
 */
export const pixelEventsDdl = (s: string): string => `
  create table if not exists "${s}".pixel_events (
    account_id uuid not null,
    event_id uuid not null,
    pixel_key_id text not null,
    origin text not null,
    event_type text not null,
    occurred_at timestamptz not null,
    anonymous_id text not null,
    session_id text,
    url_path text,
    page_title text,
    referrer_host text,
    product_external_id text,
    collection text,
    search text,
    price_cents bigint,
    dwell_ms bigint,
    consent_state text,
    raw_props jsonb,
    received_at timestamptz not null,
    primary key (account_id, event_id)
  );
  create index if not exists pixel_events_by_time on "${s}".pixel_events (account_id, occurred_at);
  create index if not exists pixel_events_by_visitor on "${s}".pixel_events (account_id, anonymous_id, occurred_at);
  create index if not exists pixel_events_by_received on "${s}".pixel_events (received_at);`;

/** campaign_sends: one row per message sent; attribution joins orders to it. */
export const campaignSendsDdl = (s: string): string => `
  create table if not exists "${s}".campaign_sends (
    tracking_id text primary key,
    account_id uuid not null,
    customer_id uuid not null,
    campaign_type text not null,
    channel text not null,
    provider text not null,
    url text not null,
    sent_at timestamptz not null,
    task_id text,
    event_id text not null,
    received_at timestamptz not null
  );
  create index if not exists campaign_sends_by_customer on "${s}".campaign_sends (account_id, customer_id, sent_at);
  create index if not exists campaign_sends_by_time on "${s}".campaign_sends (account_id, sent_at);`;

/**
 * dead_letters: records a projection could never apply. Written in the same transaction as the
 * checkpoint that moves past them, so "skipped" and "recorded" cannot disagree. `record_timestamp`
 * is the Kafka timestamp (not now()), so a rebuild reproduces the table; it is also what the retention
 * pass expires them by (HOLDFAST_DEAD_LETTER_RETENTION_DAYS, 30 days by default). A letter keeps the
 * record's raw bytes (what a re-drive appends) and never a decoded copy of it.
 */
export const deadLettersDdl = (s: string): string => `
  create table if not exists "${s}".dead_letters (
    projection text not null,
    topic text not null,
    partition integer not null,
    record_offset bigint not null,
    id text generated always as
      (projection || ':' || partition::text || ':' || record_offset::text) stored,
    account_id text,
    reason text not null,
    record_key bytea,
    record_value bytea,
    record_timestamp timestamptz,
    status text not null default 'dead' check (status in ('dead', 'redriven')),
    redriven_at timestamptz,
    primary key (projection, topic, partition, record_offset)
  );
  -- The X-Request-Id the record was appended under (its holdfast-request-id header), if any.
  alter table "${s}".dead_letters add column if not exists request_id text;
  create index if not exists dead_letters_by_status on "${s}".dead_letters (status, projection);`;
