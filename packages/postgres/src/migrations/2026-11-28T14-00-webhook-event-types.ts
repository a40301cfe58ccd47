import { sql, type Kysely } from 'kysely';

/**
 * Webhook management over HTTP and the planned outbound events (issue 24):
 *
 * - a subscription chooses its event types (every existing subscription keeps what it had,
 *   `campaign.sent`);
 * - `control.outbound_events`: each occurrence of `customer.churned`, `recovery.attributed`,
 *   `lift.proven` and `sync.completed`, written by the recompute in the transaction of the change it
 *   announces, under an id derived from what happened (`outboundEventId`): a recompute or a replay
 *   that finds the same occurrence inserts nothing (`on conflict do nothing`). The dispatcher fans
 *   each out once to the subscriptions that chose its type (`fanned_out_at`). Rows are kept: they are
 *   the memory that makes an occurrence emit once.
 */
// Frozen in time: never edit a migration that has run; add a new one.
// eslint-disable-next-line @typescript-eslint/no-explicit-any
export async function up(db: Kysely<any>): Promise<void> {
  await sql`
    alter table control.webhook_subscriptions
      add column event_types text[] not null default '{campaign.sent}';

    create table control.outbound_events (
      event_id uuid primary key,
      -- no foreign key: the recompute scores accounts the way the read models hold them
      account_id uuid not null,
      event_type text not null,
      -- what it is about (a customer id, a task id, campaign type and month), and the natural key
      -- the id was derived from; for reading, the id alone decides
      subject text not null,
      data jsonb not null,
      occurred_at timestamptz not null,
      created_at timestamptz not null default now(),
      fanned_out_at timestamptz
    );
    create index outbound_events_unfanned on control.outbound_events (created_at) where fanned_out_at is null;
    create index outbound_events_account on control.outbound_events (account_id, created_at desc);
    -- "announced before?" by natural key (the recompute skips recovered orders already announced)
    create index outbound_events_subject on control.outbound_events (account_id, event_type, subject);
  `.execute(db);
}
