// createPool (packages/db) against the real PostgreSQL: connections that die do not kill the process.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createPool, type Pool } from '@holdfast/db';
import { classifyError } from '@holdfast/platform';
import { createTestEnv, type TestEnv } from './test-env.js';

let t: TestEnv;
let pool: Pool;
const warnings: Record<string, unknown>[] = [];
const logger = {
  debug: () => {},
  info: () => {},
  warn: (_e: string, ctx?: Record<string, unknown>) => void warnings.push(ctx ?? {}),
  error: () => {},
  child: () => logger,
};

beforeAll(async () => {
  t = await createTestEnv('pool');
  pool = createPool(t.databaseUrl, 'pool-under-test', 3, { statementTimeoutMs: 500, logger });
});
afterAll(async () => {
  await pool?.end();
  await t?.close();
});

/** Terminates the backends of the pool under test only (this test's database, this application). */
const terminate = () =>
  t.pool.query<{ n: number }>(
    `select count(pg_terminate_backend(pid))::int as n from pg_stat_activity
      where datname = $1 and application_name = 'pool-under-test' and pid <> pg_backend_pid()`,
    [t.name],
  );

describe('createPool on the real PostgreSQL', () => {
  it('survives pg_terminate_backend of its idle connections; the next query works', async () => {
    await Promise.all([1, 2, 3].map(() => pool.query('select pg_sleep(0.05)')));
    expect(pool.idleCount).toBeGreaterThan(0);
    const { rows } = await terminate();
    expect(rows[0]!.n).toBeGreaterThan(0);
    await new Promise((r) => setTimeout(r, 200)); // the idle clients see their connections die
    const again = await pool.query<{ one: number }>('select 1 as one');
    expect(again.rows[0]!.one).toBe(1);
    expect(warnings.length).toBeGreaterThan(0);
    expect(warnings[0]).toMatchObject({ pool: 'pool-under-test', kind: 'retriable' });
  });

  it('survives the termination of a checked-out connection mid-query: the query fails retriably', async () => {
    const client = await pool.connect();
    const running = client.query('select pg_sleep(0.4)').then(
      () => undefined,
      (err: unknown) => err,
    );
    await new Promise((r) => setTimeout(r, 100));
    await terminate();
    const err = await running;
    expect(err).toBeInstanceOf(Error);
    expect(classifyError(err)).toBe('retriable');
    client.release(err as Error);
    const { rows } = await pool.query<{ one: number }>('select 1 as one');
    expect(rows[0]!.one).toBe(1);
  });

  it('applies statement_timeout: a statement running too long fails with 57014 (retriable)', async () => {
    const err = await pool.query('select pg_sleep(2)').then(
      () => undefined,
      (e: unknown) => e,
    );
    expect((err as { code?: string }).code).toBe('57014');
    expect(classifyError(err)).toBe('retriable');
    const { rows } = await pool.query<{ setting: string }>(
      `select current_setting('statement_timeout') as setting`,
    );
    expect(rows[0]!.setting).toBe('500ms');
  });
});
