import { sql, type Kysely } from 'kysely';
import { checkpointTableDdl } from '@holdfast/postgres';

/**
 * The dispatcher's durable state. `deliveries` holds one row per (subscription, campaign.sent event):
 * the raw body exactly as signed (a retry re-sends the same bytes, so the same signature), the state
 * and when the next attempt is due. `delivery_attempts` is the audit trail of every attempt. Because
 * both live in PostgreSQL, a restart loses no pending retry: the poller simply finds it due.
 */
export async function up(db: Kysely<unknown>): Promise<void> {
  await sql`
    create schema if not exists dispatcher;

    create table dispatcher.deliveries (
      delivery_id uuid primary key,
      account_id uuid not null,
      subscription_id uuid not null,
      event text not null,
      -- the tracking id of the CampaignSent record this delivery announces
      source_id text not null,
      body text not null,
      status text not null check (status in ('pending', 'delivered', 'failed', 'cancelled')),
      attempts integer not null default 0,
      next_attempt_at timestamptz,
      -- a poller that claimed the row owns it until then (a crashed poller's claim simply expires)
      lease_until timestamptz,
      created_at timestamptz not null,
      delivered_at timestamptz,
      last_status_code integer,
      last_error text
    );
    create index deliveries_due on dispatcher.deliveries (next_attempt_at) where status = 'pending';
    create index deliveries_by_account on dispatcher.deliveries (account_id, created_at desc);

    create table dispatcher.delivery_attempts (
      delivery_id uuid not null references dispatcher.deliveries (delivery_id) on delete cascade,
      attempt integer not null check (attempt >= 1),
      attempted_at timestamptz not null,
      succeeded boolean not null,
      status_code integer,
      error text,
      duration_ms integer not null,
      primary key (delivery_id, attempt)
    );
  `.execute(db);
  await sql.raw(checkpointTableDdl('dispatcher')).execute(db);
}

export async function down(db: Kysely<unknown>): Promise<void> {
  await sql`drop schema if exists dispatcher cascade`.execute(db);
}
