// The recompute's own schema comes from its migration set (not from its start), and the migration
// adopts a database where the recompute created these tables at start before it existed.
import type { Kysely } from 'kysely';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createTestEnv, type TestEnv } from '@holdfast/testing';
import { migrateRecompute } from '@holdfast/migrations';

let fresh: TestEnv;
let older: TestEnv;
beforeAll(async () => {
  [fresh, older] = await Promise.all([createTestEnv('rc-mig-fresh'), createTestEnv('rc-mig-older')]);
});
afterAll(async () => {
  await fresh?.close();
  await older?.close();
});

const columns = async (t: TestEnv) =>
  (
    await t.pool.query<{ name: string }>(
      `select table_name || '.' || column_name as name from information_schema.columns
        where table_schema = 'recompute' order by 1`,
    )
  ).rows.map((r) => r.name);

describe('migrateRecompute', () => {
  it('creates schema recompute (checkpoints, sync_work) once; a second run applies nothing', async () => {
    const db = fresh.db as unknown as Kysely<unknown>;
    expect(await migrateRecompute(db)).toEqual(['2026-11-24T07-00-sync-work']);
    expect(await columns(fresh)).toEqual(
      expect.arrayContaining([
        'projection_checkpoints.last_offset',
        'sync_work.task_id',
        'sync_work.transient_failures',
      ]),
    );
    expect(await migrateRecompute(db)).toEqual([]);
  });

  it('adopts the tables a recompute created at start before the migration existed', async () => {
    // The shape the start-up DDL first created (before transient_failures was added).
    await older.pool.query(`create schema if not exists recompute;
      create table recompute.sync_work (task_id uuid primary key, account_id uuid not null, trigger text not null,
        requested_at timestamptz not null, barrier jsonb, recorded_at timestamptz not null default now(),
        not_before timestamptz not null default now(), lease_owner text, lease_until timestamptz,
        claims integer not null default 0, runs integer not null default 0, finished_at timestamptz)`);
    expect(await migrateRecompute(older.db as unknown as Kysely<unknown>)).toEqual([
      '2026-11-24T07-00-sync-work',
    ]);
    expect(await columns(older)).toEqual(await columns(fresh));
  });
});
