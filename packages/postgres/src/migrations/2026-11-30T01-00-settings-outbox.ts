import { sql, type Kysely } from 'kysely';

/**
 * The settings outbox (docs/console.md, "The timezone: through an outbox"): the console has no Kafka,
 * yet the store timezone is an AccountSettingsChanged event in the log (the projector folds it; a
 * replay must find it). So the console writes the change here, in the transaction of its audit
 * entry, and the gateway's relay (it has a producer and the registry's codec) appends it to
 * holdfast.account-settings and deletes the row. The row's id is the event's id: a relay that dies
 * after the append and appends it again appends the same event.
 */
// Frozen in time: never edit a migration that has run; add a new one.
// eslint-disable-next-line @typescript-eslint/no-explicit-any
export async function up(db: Kysely<any>): Promise<void> {
  await sql`
    create table control.settings_outbox (
      id uuid primary key,
      account_id uuid not null references control.accounts (id) on delete cascade,
      store_timezone text not null,
      requested_at timestamptz not null,
      created_at timestamptz not null default now(),
      attempts integer not null default 0,
      last_error text
    );
    create index settings_outbox_created on control.settings_outbox (created_at);
  `.execute(db);
}
