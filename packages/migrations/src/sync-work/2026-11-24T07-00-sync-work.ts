import { sql, type Kysely } from 'kysely';
import { checkpointTableDdl } from '@holdfast/postgres';

// Frozen in time: never edit a migration that has run; add a new one.
/**
 * Schema `recompute`: the sync consumer's exactly-once checkpoints and the task workers' queue
 * (`sync_work`, see sync-task-store.ts). Idempotent (`if not exists`), because databases migrated
 * before this migration have these tables already (the recompute created them at its start).
 */
export async function up(db: Kysely<unknown>): Promise<void> {
  // Only when missing: CREATE SCHEMA checks the database privilege even when the schema exists, and
  // the recompute's own role has none (applyPrivileges creates the schema for it).
  await sql`
    do $$ begin if not exists (select from pg_namespace where nspname = 'recompute') then
      create schema recompute; end if; end $$`.execute(db);
  await sql.raw(checkpointTableDdl('recompute')).execute(db);
  await sql`
    create table if not exists recompute.sync_work (
      task_id uuid primary key,
      account_id uuid not null,
      trigger text not null,
      requested_at timestamptz not null,
      barrier jsonb,
      recorded_at timestamptz not null default now(),
      not_before timestamptz not null default now(),
      lease_owner text,
      lease_until timestamptz,
      claims integer not null default 0,
      runs integer not null default 0,
      finished_at timestamptz,
      transient_failures integer not null default 0
    );
    create index if not exists sync_work_runnable on recompute.sync_work (recorded_at) where finished_at is null;
    alter table recompute.sync_work add column if not exists transient_failures integer not null default 0`.execute(
    db,
  );
}
