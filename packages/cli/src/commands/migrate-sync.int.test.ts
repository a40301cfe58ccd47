import pg from 'pg';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createAccount } from '@holdfast/control-plane';
import { topicName } from '@holdfast/kafka';
import { createTestEnv, type TestEnv } from '@holdfast/testing';
import { SERVICE_MIGRATIONS } from '@holdfast/migrations';
import { runCaptured } from '../testing/capture.js';
import { migrateCommand } from './migrate.js';

let t: TestEnv;
beforeAll(async () => (t = await createTestEnv('cli-migrate-sync')));
afterAll(() => t.close());

async function admin<T>(fn: (c: pg.Client) => Promise<T>): Promise<T> {
  const url = new URL(t.databaseUrl);
  url.pathname = '/postgres';
  const c = new pg.Client({ connectionString: url.toString() });
  await c.connect();
  try {
    return await fn(c);
  } finally {
    await c.end();
  }
}

describe('holdfast migrate', () => {
  it('applies the control-plane migrations to an empty database, then reports it up to date', async () => {
    // Named under the test database's prefix, so the run's cleanup drops it too.
    const name = `${t.name}_empty`;
    await admin((c) => c.query(`create database "${name}"`));
    const url = new URL(t.databaseUrl);
    url.pathname = `/${name}`;
    const env = { ...t.env, DATABASE_URL: url.toString() };
    const first = await runCaptured(['migrate'], env);
    expect(first.code, first.stderr).toBe(0);
    // The read models are @holdfast/read-models', a package the CLI depends on: always ensured.
    const readModels = 'ensured';
    // Other packages may register more migrations; the control plane's comes first.
    expect(first.stdout).toMatch(/^Applied \d+ migration\(s\):\n {2}2026-11-22T00-00-control-plane\n/);
    expect(first.stdout.endsWith(`\nRead models (read_models): ${readModels}\n`)).toBe(true);
    const again = await runCaptured(['migrate', '--json', '--read-schema', 'rm_other'], env);
    expect([again.code, again.json()]).toEqual([
      0,
      { applied: [], read_models: readModels, read_schema: 'rm_other' },
    ]);
  });

  it('given a migration set missing, fails (exit 1) naming it, before migrating anything', async () => {
    const name = `${t.name}_partial`;
    await admin((c) => c.query(`create database "${name}"`));
    const url = new URL(t.databaseUrl);
    url.pathname = `/${name}`;
    const withoutDispatcher = migrateCommand(SERVICE_MIGRATIONS.filter((s) => s.name !== 'dispatcher'));
    const r = await runCaptured(
      ['migrate'],
      { ...t.env, DATABASE_URL: url.toString() },
      {
        commands: [withoutDispatcher],
      },
    );
    expect([r.code, r.stdout, r.stderr]).toEqual([
      1,
      '',
      'holdfast: migration set dispatcher missing: nothing was migrated (is the installation complete?)\n',
    ]);
    // Nothing was migrated: the new database still has no table.
    const db = new pg.Client({ connectionString: url.toString() });
    await db.connect();
    const tables = await db
      .query<{ n: number }>(`select count(*)::int as n from pg_tables where schemaname = 'public'`)
      .finally(() => db.end());
    expect(tables.rows).toEqual([{ n: 0 }]);
  });

  it('says how to fix an unreachable database', async () => {
    const r = await runCaptured(['migrate'], {
      ...t.env,
      DATABASE_URL: 'postgres://postgres@127.0.0.1:1/none',
    });
    expect([r.code, r.stdout]).toEqual([1, '']);
    expect(r.stderr).toBe(
      'holdfast: cannot reach the database (ECONNREFUSED): is the stack running (`npm start`) and DATABASE_URL right?\n',
    );
  });
});

describe('holdfast sync', () => {
  it('queues a task row and appends SyncRequested keyed by account', async () => {
    const { id: account } = await createAccount(t.db, { name: 's1' });
    const r = await runCaptured(['sync', '--account', account, '--json'], t.env);
    expect(r.code, r.stderr).toBe(0);
    const out = r.json<{ task_id: string; queued_at: string }>();
    expect(out).toEqual({
      task_id: out.task_id,
      account_id: account,
      status: 'queued',
      trigger: 'cli',
      queued_at: out.queued_at,
    });

    const task = await t.db
      .selectFrom('control.sync_tasks')
      .selectAll()
      .where('id', '=', out.task_id)
      .executeTakeFirstOrThrow();
    expect(task).toMatchObject({ account_id: account, trigger: 'cli', status: 'queued' });
    expect(task.queued_at.toISOString()).toBe(out.queued_at);

    const consumer = t.verifier.consumer({
      groupId: `${t.topicPrefix}cli-sync-check`,
      readUncommitted: false,
    });
    await consumer.connect();
    await consumer.subscribe({
      topic: topicName(t.topicPrefix, 'holdfast.sync-commands'),
      fromBeginning: true,
    });
    const seen = await new Promise<{ key: string; value: unknown }>((resolve) => {
      void consumer.run({
        eachMessage: async ({ message }) => {
          resolve({ key: message.key!.toString(), value: await t.codec.decode(message.value!) });
        },
      });
    });
    await consumer.disconnect();
    expect(seen.key).toBe(account);
    expect(seen.value).toEqual({
      type: 'SyncRequested',
      value: {
        metadata: expect.objectContaining({ account_id: account, received_at: out.queued_at }),
        task_id: out.task_id,
        trigger: 'cli',
        // The recompute waits for the read models to hold what the account's partition held then.
        barrier: [{ topic: 'holdfast.commerce', partition: expect.any(Number), offset: expect.any(Number) }],
      },
    });
  });

  it('prints the task id for people; an unknown account is not found and queues nothing', async () => {
    const { id: account } = await createAccount(t.db, { name: 's2' });
    const r = await runCaptured(['sync', '--account', account], t.env);
    expect(r.stdout).toMatch(new RegExp(`^Queued sync task [0-9a-f-]{36} for ${account}\\n$`));
    const missing = '00000000-0000-4000-8000-000000000000';
    const m = await runCaptured(['sync', '--account', missing], t.env);
    expect([m.code, m.stderr]).toEqual([3, `holdfast: no account ${missing}\n`]);
    const rows = await t.db
      .selectFrom('control.sync_tasks')
      .select('id')
      .where('account_id', '=', missing)
      .execute();
    expect(rows).toEqual([]);
  });
});
