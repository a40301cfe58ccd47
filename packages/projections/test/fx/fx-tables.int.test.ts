import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createTestEnv, type TestEnv } from '@holdfast/testing';
import { FX_TABLE_COLUMNS } from '@holdfast/read-models';

let t: TestEnv;

beforeAll(async () => {
  t = await createTestEnv('fx-tables');
});

afterAll(() => t?.close());

describe('the kysely types of the fx tables match the tables the migration creates', () => {
  it.each(Object.entries(FX_TABLE_COLUMNS))(
    'given %s, then its type names exactly its columns, in order',
    async (table, columns) => {
      const [schema, name] = table.split('.');
      const { rows } = await t.pool.query<{ column_name: string }>(
        `select column_name from information_schema.columns
          where table_schema = $1 and table_name = $2 order by ordinal_position`,
        [schema, name],
      );
      expect(rows.map((r) => r.column_name)).toEqual(columns);
    },
  );
});
