import type { Kysely } from 'kysely';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createTestEnv, type TestEnv } from '@holdfast/testing';
import { CAMPAIGN_TABLE_COLUMNS } from '@holdfast/campaign-store';
import { migrateCampaigns, migrateAnalytics, migrateRecompute } from '@holdfast/migrations';
import { RECOMPUTE_TABLE_COLUMNS } from '../../src/migrations/tables.js';

let t: TestEnv;

beforeAll(async () => {
  t = await createTestEnv('rc-tables');
  const db = t.db as unknown as Kysely<unknown>;
  await migrateAnalytics(db);
  await migrateCampaigns(db);
  await migrateRecompute(db);
});

afterAll(() => t?.close());

const columnsOf = async (qualified: string) => {
  const [schema, table] = qualified.split('.');
  return (
    await t.pool.query<{ column_name: string }>(
      `select column_name from information_schema.columns
        where table_schema = $1 and table_name = $2 order by ordinal_position`,
      [schema, table],
    )
  ).rows.map((r) => r.column_name);
};

describe('the kysely table types match the tables the migrations create', () => {
  it.each(Object.entries({ ...RECOMPUTE_TABLE_COLUMNS, ...CAMPAIGN_TABLE_COLUMNS }))(
    'given %s, then its type names exactly its columns, in order',
    async (table, columns) => {
      expect(await columnsOf(table)).toEqual(columns);
    },
  );
});
