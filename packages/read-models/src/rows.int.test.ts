import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createTestEnv, type TestEnv } from '@holdfast/testing';
import { ensureReadModelSchema } from './ensure-read-model-schema.js';
import { CUSTOMER_ROW_COLUMNS, ORDER_ROW_COLUMNS } from './rows.js';

let t: TestEnv;

beforeAll(async () => {
  t = await createTestEnv('rows');
  await ensureReadModelSchema(t.pool, 'rm_rows');
});

afterAll(() => t?.close());

const columnsOf = async (table: string) =>
  (
    await t.pool.query<{ column_name: string }>(
      `select column_name from information_schema.columns
        where table_schema = 'rm_rows' and table_name = $1 order by ordinal_position`,
      [table],
    )
  ).rows.map((r) => r.column_name);

describe('the typed rows match the tables the DDL creates', () => {
  it('given the orders table, then OrderRow names exactly its columns, in order', async () => {
    expect(await columnsOf('orders')).toEqual(ORDER_ROW_COLUMNS);
  });

  it('given the customers table, then CustomerRow names exactly its columns, in order', async () => {
    expect(await columnsOf('customers')).toEqual(CUSTOMER_ROW_COLUMNS);
  });
});
