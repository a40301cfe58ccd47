// createPool (packages/postgres) against the real PostgreSQL: connections that die do not kill the process.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { clientQueryTimeoutMs, createPool, type Pool } from '@holdfast/postgres';
import { classifyError } from '@holdfast/platform';
import { TcpProxy } from './tcp-proxy.js';
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

describe('createPool behind a database host that vanishes without a reset', () => {
  it('given a query in flight when the host goes silent, then it fails retriably at the client-side query timeout, and the pool serves again once the host is back', async () => {
    const url = new URL(t.databaseUrl);
    const proxy = await TcpProxy.start(url.hostname, Number(url.port || 5432));
    url.hostname = '127.0.0.1';
    url.port = String(proxy.port);
    // statement_timeout 300 ms: the client-side query timeout is 5.3 s (clientQueryTimeoutMs).
    const silent = createPool(url.toString(), 'pool-blackholed', 1, { statementTimeoutMs: 300 });
    try {
      expect((await silent.query<{ one: number }>('select 1 as one')).rows[0]!.one).toBe(1);
      proxy.blackhole();
      const started = Date.now();
      const err = await silent.query('select 1').then(
        () => undefined,
        (e: unknown) => e,
      );
      const tookMs = Date.now() - started;
      expect((err as Error).message).toBe('Query read timeout');
      expect(classifyError(err)).toBe('retriable');
      expect(tookMs).toBeGreaterThanOrEqual(clientQueryTimeoutMs(300) - 100);
      expect(tookMs).toBeLessThan(clientQueryTimeoutMs(300) + 2_000);
      proxy.forward();
      // The wedged connection was ended, not handed out again: a fresh one answers.
      expect((await silent.query<{ one: number }>('select 1 as one')).rows[0]!.one).toBe(1);
    } finally {
      proxy.forward();
      await silent.end();
      await proxy.close();
    }
  });

  it('given a client released with its timed-out query still unanswered (as kysely and withTransaction release), then that client is ended, never handed out again', async () => {
    const url = new URL(t.databaseUrl);
    const proxy = await TcpProxy.start(url.hostname, Number(url.port || 5432));
    url.hostname = '127.0.0.1';
    url.port = String(proxy.port);
    const silent = createPool(url.toString(), 'pool-blackholed', 1, {
      statementTimeoutMs: 0,
      queryTimeoutMs: 500,
    });
    try {
      const first = await silent.connect();
      const pid = (await first.query<{ pid: number }>('select pg_backend_pid() as pid')).rows[0]!.pid;
      proxy.blackhole();
      await expect(first.query('select 1')).rejects.toThrow('Query read timeout');
      first.release();
      proxy.forward();
      const second = await silent.connect();
      try {
        const again = (await second.query<{ pid: number }>('select pg_backend_pid() as pid')).rows[0]!.pid;
        expect(again).not.toBe(pid);
      } finally {
        second.release();
      }
    } finally {
      proxy.forward();
      await silent.end();
      await proxy.close();
    }
  });
});
