import { randomUUID } from 'node:crypto';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { SyncRequested, SyncTrigger } from '@holdfast/contracts';
import { createAccount } from '@holdfast/db';
import { TransactionalAppender, topicName, type RunningConsumer } from '@holdfast/kafka';
import { createTestEnv, type TestEnv } from '@holdfast/testing';
import { startSyncConsumer } from './sync-consumer.js';
import type { SyncTaskRef } from './sync-task-store.js';

let t: TestEnv;
let appender: TransactionalAppender;
let consumer: RunningConsumer;
const failing = new Set<string>();

function consume(group: string): Promise<RunningConsumer> {
  return startSyncConsumer(
    {
      infra: {
        databaseUrl: t.databaseUrl,
        kafkaBrokers: [],
        schemaRegistryUrl: '',
        topicPrefix: t.topicPrefix,
        partitions: 2,
      },
      readModelSchema: 'read_models',
      groupId: `${t.topicPrefix}${group}`,
    },
    {
      pool: t.pool,
      kafka: t.kafka,
      codec: t.codec,
      recompute: async (task: SyncTaskRef) => {
        if (failing.has(task.taskId)) throw new Error('boom');
        await Promise.resolve();
      },
    },
  );
}

/** Appends a SyncRequested; with `row`, inserts its queued control.sync_tasks row first (as the gateway does). */
async function request(
  accountId: string,
  { row = true, trigger }: { row?: boolean; trigger?: SyncTrigger } = {},
) {
  trigger ??= 'api';
  const taskId = randomUUID();
  if (row)
    await t.pool.query(
      `insert into control.sync_tasks (id, account_id, trigger, status, queued_at) values ($1, $2, $3, 'queued', now())`,
      [taskId, accountId, trigger],
    );
  const value: SyncRequested = {
    metadata: {
      account_id: accountId,
      event_id: randomUUID(),
      batch_id: null,
      request_id: null,
      key_id: null,
      received_at: new Date().toISOString(),
    },
    task_id: taskId,
    trigger,
  };
  await appender.append([
    {
      topic: topicName(t.topicPrefix, 'holdfast.sync-commands'),
      key: accountId,
      value: t.codec.encode('SyncRequested', value),
    },
  ]);
  return taskId;
}

const task = async (id: string) =>
  (await t.pool.query(`select * from control.sync_tasks where id = $1`, [id])).rows[0] as
    Record<string, unknown> | undefined;

async function settled(id: string): Promise<Record<string, unknown>> {
  const deadline = Date.now() + 30_000;
  for (;;) {
    const row = await task(id);
    if (row && ['done', 'failed', 'skipped'].includes(row.status as string)) return row;
    if (Date.now() > deadline) throw new Error(`task ${id} still ${String(row?.status)}`);
    await new Promise((r) => setTimeout(r, 50));
  }
}

async function addRows(accountId: string, orders: number, customers: number) {
  await t.pool.query(
    `insert into read_models.orders select $1, gen_random_uuid()::text from generate_series(1, $2)`,
    [accountId, orders],
  );
  await t.pool.query(
    `insert into read_models.customers select $1, gen_random_uuid() from generate_series(1, $2)`,
    [accountId, customers],
  );
}

beforeAll(async () => {
  t = await createTestEnv('recompute-sync');
  // Only what the consumer counts; the projector owns the real tables.
  await t.pool.query(`create schema read_models;
    create table read_models.orders (account_id uuid not null, order_id text not null);
    create table read_models.customers (account_id uuid not null, customer_id uuid not null)`);
  appender = await TransactionalAppender.create(t.kafka, { name: `${t.topicPrefix}sync-test`, size: 1 });
  consumer = await consume('recompute-sync');
});

afterAll(async () => {
  await consumer?.stop();
  await appender?.close();
  await t?.close();
});

describe('sync consumer', () => {
  let accountId: string;
  let first: string;

  it('moves a task to done with the growth since the previous done task', async () => {
    accountId = (await createAccount(t.db, { name: 'Shop' })).id;
    await addRows(accountId, 3, 2);
    first = await request(accountId);
    expect(await settled(first)).toMatchObject({
      status: 'done',
      orders_added: 3,
      customers_added: 2,
      reason: null,
    });
    await addRows(accountId, 2, 0);
    const second = await request(accountId);
    const done = await settled(second);
    expect(done).toMatchObject({ status: 'done', orders_added: 2, customers_added: 0 });
    expect(done.duration_ms).toEqual(expect.any(Number));
  });

  it('marks a task failed, with the reason, when the recompute throws', async () => {
    const id = randomUUID();
    failing.add(id);
    await t.pool.query(
      `insert into control.sync_tasks (id, account_id, trigger, status, queued_at) values ($1, $2, 'api', 'queued', now())`,
      [id, accountId],
    );
    const value: SyncRequested = {
      metadata: {
        account_id: accountId,
        event_id: randomUUID(),
        batch_id: null,
        request_id: null,
        key_id: null,
        received_at: new Date().toISOString(),
      },
      task_id: id,
      trigger: 'api',
    };
    await appender.append([
      {
        topic: topicName(t.topicPrefix, 'holdfast.sync-commands'),
        key: accountId,
        value: t.codec.encode('SyncRequested', value),
      },
    ]);
    expect(await settled(id)).toMatchObject({
      status: 'failed',
      reason: 'recompute_failed: boom',
      orders_added: null,
    });
  });

  it('gives a command without a task row (another producer) its row, and runs it', async () => {
    const id = await request(accountId, { row: false, trigger: 'cli' });
    expect(await settled(id)).toMatchObject({ status: 'done', trigger: 'cli', account_id: accountId });
  });

  it('resumes a task its own crashed attempt left running, keeping its start', async () => {
    const id = randomUUID();
    await t.pool.query(
      `insert into control.sync_tasks (id, account_id, trigger, status, queued_at, started_at)
       values ($1, $2, 'api', 'running', now(), now() - interval '5 seconds')`,
      [id, accountId],
    );
    const value: SyncRequested = {
      metadata: {
        account_id: accountId,
        event_id: randomUUID(),
        batch_id: null,
        request_id: null,
        key_id: null,
        received_at: new Date().toISOString(),
      },
      task_id: id,
      trigger: 'api',
    };
    await appender.append([
      {
        topic: topicName(t.topicPrefix, 'holdfast.sync-commands'),
        key: accountId,
        value: t.codec.encode('SyncRequested', value),
      },
    ]);
    const done = await settled(id);
    expect(done.status).toBe('done');
    expect(done.duration_ms as number).toBeGreaterThanOrEqual(5000);
  });

  it('skips a task while another task of the account is running; a stale running task does not block', async () => {
    await t.pool.query(
      `insert into control.sync_tasks (id, account_id, trigger, status, queued_at, started_at)
       values ($1, $2, 'nightly', 'running', now(), now())`,
      [randomUUID(), accountId],
    );
    const skipped = await request(accountId);
    expect(await settled(skipped)).toMatchObject({
      status: 'skipped',
      reason: 'already_running',
      orders_added: null,
    });
    const other = (await createAccount(t.db, { name: 'Other' })).id;
    await t.pool.query(
      `insert into control.sync_tasks (id, account_id, trigger, status, queued_at, started_at)
       values ($1, $2, 'nightly', 'running', now() - interval '2 hours', now() - interval '2 hours')`,
      [randomUUID(), other],
    );
    expect(await settled(await request(other))).toMatchObject({ status: 'done' });
  });

  it('changes nothing twice when the commands are consumed again from offset 0', async () => {
    const before = await task(first);
    await consumer.stop();
    consumer = await consume('recompute-sync-replay');
    const fresh = (await createAccount(t.db, { name: 'Marker' })).id;
    await addRows(fresh, 1, 1);
    const marker = await request(fresh);
    // The new group read every command from offset 0 before the marker; the checkpoints made it skip them.
    expect(await settled(marker)).toMatchObject({ status: 'done', orders_added: 1, customers_added: 1 });
    expect(await task(first)).toEqual(before);
  });
});
