import { sql, type Kysely } from 'kysely';

// Frozen in time: never edit a migration that has run; add a new one.
// eslint-disable-next-line @typescript-eslint/no-explicit-any
export async function up(db: Kysely<any>): Promise<void> {
  await sql`
    create schema if not exists control;

    create table control.accounts (
      id uuid primary key,
      name text not null,
      storefront_domain text,
      is_demo boolean not null default false,
      is_sandbox boolean not null default false,
      created_at timestamptz not null default now()
    );

    -- Ingest keys (tk_live_, tk_test_) and outbound keys (sk_live_): stored as SHA-256, shown once.
    create table control.api_keys (
      id uuid primary key,
      account_id uuid not null references control.accounts(id),
      kind text not null check (kind in ('ingest_live', 'ingest_test', 'outbound')),
      prefix text not null,
      key_hash bytea not null unique,
      created_at timestamptz not null default now(),
      last_used_at timestamptz,
      revoked_at timestamptz,
      -- set when rotated: the key keeps working until then (the grace window)
      expires_at timestamptz
    );
    create index api_keys_account on control.api_keys (account_id);

    -- Integration tiles: the custom integration and the zero-party tile, each with its own token.
    create table control.tiles (
      account_id uuid not null references control.accounts(id),
      tile text not null check (tile in ('custom_integration', 'zero_party')),
      token_hash bytea not null unique,
      token_prefix text not null,
      connected_at timestamptz not null default now(),
      disconnected_at timestamptz,
      -- "awaiting setup" until the first POST /webhooks/custom-api
      first_call_at timestamptz,
      primary key (account_id, tile)
    );

    -- Email and SMS providers connected to an account (campaign sends go through them).
    create table control.providers (
      account_id uuid not null references control.accounts(id),
      provider text not null,
      channel text not null check (channel in ('email', 'sms')),
      endpoint_url text not null,
      connected_at timestamptz not null default now(),
      primary key (account_id, provider)
    );

    create table control.pixel_keys (
      id uuid primary key,
      account_id uuid not null references control.accounts(id),
      prefix text not null,
      key_hash bytea not null unique,
      created_at timestamptz not null default now(),
      revoked_at timestamptz
    );
    create table control.pixel_origins (
      pixel_key_id uuid not null references control.pixel_keys(id) on delete cascade,
      origin text not null,
      primary key (pixel_key_id, origin)
    );

    -- Outbound webhook subscriptions. The whsec_ secret is kept because every delivery is signed with it.
    create table control.webhook_subscriptions (
      id uuid primary key,
      account_id uuid not null references control.accounts(id),
      url text not null,
      secret text not null,
      created_at timestamptz not null default now(),
      disabled_at timestamptz
    );
    create index webhook_subscriptions_account on control.webhook_subscriptions (account_id);

    -- Fixed-window counters shared by every gateway process (rate limits, failed authentications).
    create unlogged table control.rate_counters (
      bucket text not null,
      window_start timestamptz not null,
      count integer not null,
      primary key (bucket, window_start)
    );

    create table control.sync_tasks (
      id uuid primary key,
      account_id uuid not null references control.accounts(id),
      trigger text not null,
      status text not null check (status in ('queued', 'running', 'done', 'failed', 'skipped')),
      queued_at timestamptz not null,
      started_at timestamptz,
      finished_at timestamptz,
      orders_added integer,
      customers_added integer,
      duration_ms integer,
      reason text
    );
    create index sync_tasks_account on control.sync_tasks (account_id, queued_at desc);

    -- Change notifications: gateways drop cached credentials within a second of a revocation.
    create or replace function control.notify_credentials_changed() returns trigger language plpgsql as $$
    begin
      perform pg_notify('holdfast_credentials', tg_table_name);
      return null;
    end $$;
    create trigger api_keys_changed after insert or update or delete on control.api_keys
      for each statement execute function control.notify_credentials_changed();
    create trigger tiles_changed after insert or update or delete on control.tiles
      for each statement execute function control.notify_credentials_changed();
    create trigger pixel_keys_changed after insert or update or delete on control.pixel_keys
      for each statement execute function control.notify_credentials_changed();
    create trigger pixel_origins_changed after insert or update or delete on control.pixel_origins
      for each statement execute function control.notify_credentials_changed();
    create trigger accounts_changed after insert or update or delete on control.accounts
      for each statement execute function control.notify_credentials_changed();
  `.execute(db);
}
