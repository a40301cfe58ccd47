import { sql, type Kysely } from 'kysely';

/**
 * The sync outbox (docs/reliability.md, "Sync tasks through an outbox"): a sync task's SyncRequested
 * command is stored beside its control.sync_tasks row, in the same transaction, so the two cannot
 * part. A relay appends the pending commands to holdfast.sync-commands and deletes them; a process
 * that dies between the commit and the append leaves the command here, not a task nobody runs.
 */
// Frozen in time: never edit a migration that has run; add a new one.
// eslint-disable-next-line @typescript-eslint/no-explicit-any
export async function up(db: Kysely<any>): Promise<void> {
  await sql`
    create table control.sync_outbox (
      task_id uuid primary key references control.sync_tasks (id) on delete cascade,
      account_id uuid not null,
      command bytea not null,
      created_at timestamptz not null default now(),
      attempts integer not null default 0,
      last_error text
    );
    create index sync_outbox_created on control.sync_outbox (created_at);
  `.execute(db);
}
