import { randomBytes } from 'node:crypto';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createPool, type Pool } from './pool.js';
import { withTransaction } from './transaction.js';

let pool: Pool;
const table = `tx_${randomBytes(4).toString('hex')}`;

beforeAll(async () => {
  pool = createPool(process.env.DATABASE_URL!, 'test-transaction', 2);
  await pool.query(`create table public.${table} (n int)`);
});

afterAll(async () => {
  await pool?.query(`drop table if exists public.${table}`);
  await pool?.end();
});

const count = async () =>
  (await pool.query<{ n: number }>(`select count(*)::int as n from ${table}`)).rows[0]!.n;

describe('withTransaction', () => {
  it('given work that resolves, then its writes are committed and its value returned', async () => {
    const value = await withTransaction(pool, async (c) => {
      await c.query(`insert into ${table} values (1)`);
      return 'done';
    });
    expect(value).toBe('done');
    expect(await count()).toBe(1);
  });

  it('given work that throws after a write, then the write is rolled back and the error rethrown', async () => {
    const before = await count();
    await expect(
      withTransaction(pool, async (c) => {
        await c.query(`insert into ${table} values (2)`);
        throw new Error('boom');
      }),
    ).rejects.toThrow('boom');
    expect(await count()).toBe(before);
  });

  it('given settings, then they hold inside the transaction only', async () => {
    const inside = await withTransaction(
      pool,
      async (c) =>
        (await c.query<{ v: string }>(`select current_setting('enable_hashjoin') as v`)).rows[0]!.v,
      { settings: { enable_hashjoin: 'off' } },
    );
    expect(inside).toBe('off');
    const after = await pool.query<{ v: string }>(`select current_setting('enable_hashjoin') as v`);
    expect(after.rows[0]!.v).toBe('on');
  });

  it('given a read-only transaction, then a write fails', async () => {
    await expect(
      withTransaction(pool, (c) => c.query(`insert into ${table} values (3)`), { readOnly: true }),
    ).rejects.toThrow(/read-only/);
  });
});
