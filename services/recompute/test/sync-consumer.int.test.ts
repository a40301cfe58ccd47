import { randomUUID } from 'node:crypto';
import type { Kysely } from 'kysely';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { LogPosition, SyncRequested, SyncTrigger } from '@holdfast/contracts';
import { checkpointTableDdl, createPool, type Pool } from '@holdfast/postgres';
import { createAccount } from '@holdfast/control-plane';
import { TransactionalAppender, topicName, type RunningConsumer } from '@holdfast/kafka';
import { createTestEnv, TcpProxy, type TestEnv } from '@holdfast/testing';
import { migrateRecompute } from '@holdfast/migrations';
import { startSyncConsumer } from '../src/sync-consumer.js';
import type { ScoredSnapshot, SyncTaskRef } from '../src/sync-task-store.js';
import { DEFAULT_READ_MODEL_SCHEMA } from '@holdfast/read-models';

let t: TestEnv;
let appender: TransactionalAppender;
let consumer: RunningConsumer;
const failing = new Set<string>();
/** Tasks whose first recompute fails as a lost database connection does. */
const blips = new Set<string>();
/** Recompute calls per task id. */
const runs = new Map<string, number>();
/** Tasks whose recompute waits until the test opens their gate. */
const gates = new Map<string, Promise<void>>();
/** Tasks whose recompute runs a statement that always exceeds statement_timeout (57014). */
const timingOut = new Set<string>();
let shortTimeout: Pool;
/** Given-up tasks counted by the consumer's retry budget, by component. */
const exhausted: string[] = [];
/** Tasks whose recompute reads PostgreSQL through a proxy the test cuts (a database outage). */
const viaProxy = new Set<string>();
let proxy: TcpProxy;
let proxied: Pool;
/** Snapshot counts a recompute reports for a task (as scoring does). */
const snapshots = new Map<string, ScoredSnapshot>();
const PROJECTOR_GROUP = () => `${t.topicPrefix}projector-under-test`;

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
      readModelSchema: DEFAULT_READ_MODEL_SCHEMA,
      groupId: `${t.topicPrefix}${group}`,
      projectorGroupId: PROJECTOR_GROUP(),
      worker: {
        pollMs: 100,
        leaseMs: 3_000,
        barrierTimeoutMs: 6_000,
        retryBackoff: { baseMs: 50, maxMs: 200 },
        retryBudget: 4,
      },
    },
    {
      pool: t.pool,
      kafka: t.kafka,
      codec: t.codec,
      onRetryBudgetExhausted: (component) => exhausted.push(component),
      recompute: async (task: SyncTaskRef) => {
        runs.set(task.taskId, (runs.get(task.taskId) ?? 0) + 1);
        if (timingOut.has(task.taskId)) await shortTimeout.query('select pg_sleep(1)');
        await gates.get(task.taskId);
        if (viaProxy.has(task.taskId)) await proxied.query('select pg_sleep(0.05)');
        if (failing.has(task.taskId)) throw new Error('boom');
        if (blips.delete(task.taskId))
          throw Object.assign(new Error('terminating connection due to administrator command'), {
            code: '57P01',
          });
        return snapshots.get(task.taskId);
      },
    },
  );
}

function command(accountId: string, taskId: string, trigger: SyncTrigger, barrier: LogPosition[] | null) {
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
    barrier,
  };
  return {
    topic: topicName(t.topicPrefix, 'holdfast.sync-commands'),
    key: accountId,
    value: t.codec.encode('SyncRequested', value),
  };
}

/** Appends a SyncRequested; with `row`, inserts its queued control.sync_tasks row first (as the gateway does). */
async function request(
  accountId: string,
  {
    row = true,
    trigger = 'api',
    barrier = null,
    id = randomUUID(),
  }: { row?: boolean; trigger?: SyncTrigger; barrier?: LogPosition[] | null; id?: string } = {},
) {
  if (row)
    await t.pool.query(
      `insert into control.sync_tasks (id, account_id, trigger, status, queued_at) values ($1, $2, $3, 'queued', now())`,
      [id, accountId, trigger],
    );
  await appender.append([command(accountId, id, trigger, barrier)]);
  return id;
}

const task = async (id: string) =>
  (await t.pool.query(`select * from control.sync_tasks where id = $1`, [id])).rows[0] as
    Record<string, unknown> | undefined;

async function until<T>(what: string, probe: () => Promise<T | undefined>, ms = 30_000): Promise<T> {
  const deadline = Date.now() + ms;
  for (;;) {
    const v = await probe();
    if (v !== undefined) return v;
    if (Date.now() > deadline) throw new Error(`timed out waiting for ${what}`);
    await new Promise((r) => setTimeout(r, 50));
  }
}

const settled = (id: string) =>
  until(`task ${id} to end`, async () => {
    const row = await task(id);
    return row && ['done', 'failed', 'skipped'].includes(row.status as string) ? row : undefined;
  });

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

async function setCheckpoint(partition: number, offset: number) {
  await t.pool.query(
    `insert into read_models.projection_checkpoints (projection, topic, partition, last_offset)
     values ('commerce', 'holdfast.commerce', $1, $2)
     on conflict (projection, topic, partition) do update set last_offset = excluded.last_offset`,
    [partition, offset],
  );
}

beforeAll(async () => {
  t = await createTestEnv('recompute-sync');
  // Only what the consumer counts and the barrier reads; the projector owns the real tables.
  await t.pool.query(`create schema read_models;
    create table read_models.orders (account_id uuid not null, order_id text not null);
    create table read_models.customers (account_id uuid not null, customer_id uuid not null)`);
  await t.pool.query(checkpointTableDdl(DEFAULT_READ_MODEL_SCHEMA));
  await migrateRecompute(t.db as unknown as Kysely<unknown>);
  appender = await TransactionalAppender.create(t.kafka, { name: `${t.topicPrefix}sync-test`, size: 1 });
  consumer = await consume('recompute-sync');
  const url = new URL(t.databaseUrl);
  proxy = await TcpProxy.start(url.hostname, Number(url.port || 5432));
  url.port = String(proxy.port);
  proxied = createPool(url.toString(), 'recompute-behind-proxy', 2, { connectTimeoutMs: 1_000 });
  shortTimeout = createPool(t.databaseUrl, 'recompute-short-timeout', 1, { statementTimeoutMs: 50 });
});

afterAll(async () => {
  await consumer?.stop();
  await proxied?.end();
  await shortTimeout?.end();
  await proxy?.close();
  await appender?.close();
  await t?.close();
});

describe('sync consumer and task worker', () => {
  let accountId: string;
  let first: string;
  /** The `data` of the sync.completed occurrences recorded for a task. */
  const syncCompletedOf = async (taskId: string) =>
    (
      await t.pool.query<{ data: Record<string, unknown> }>(
        `select data from control.outbound_events where event_type = 'sync.completed' and data->>'task_id' = $1`,
        [taskId],
      )
    ).rows.map((r) => r.data);

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
    // Each ended task is announced once (sync.completed), with its counters, in the same transaction.
    expect(await syncCompletedOf(second)).toEqual([
      expect.objectContaining({ task_id: second, status: 'done', orders_added: 2, customers_added: 0 }),
    ]);
  });

  it('takes the counters from the snapshot the recompute scored, not from rows projected since', async () => {
    const shop = (await createAccount(t.db, { name: 'Snapshot' })).id;
    await addRows(shop, 10, 4);
    const id = randomUUID();
    // The recompute scored 7 orders and 3 customers; 3 orders and a customer arrived after its snapshot.
    snapshots.set(id, { orders: 7, customers: 3 });
    expect(await settled(await request(shop, { id }))).toMatchObject({
      status: 'done',
      orders_added: 7,
      customers_added: 3,
    });
    // The next task counts what the previous one did not.
    expect(await settled(await request(shop))).toMatchObject({ orders_added: 3, customers_added: 1 });
  });

  it('marks a task failed, with the reason, when the recompute throws', async () => {
    const id = randomUUID();
    failing.add(id);
    await request(accountId, { id });
    expect(await settled(id)).toMatchObject({
      status: 'failed',
      reason: 'recompute_failed: boom',
      orders_added: null,
    });
  });

  it('runs a task again when its recompute met a transient failure (a lost database connection)', async () => {
    const id = randomUUID();
    blips.add(id);
    await request(accountId, { id });
    const done = await settled(id);
    expect(done).toMatchObject({ status: 'done', reason: null });
    expect(runs.get(id)).toBe(2);
  });

  it('runs a task again for as long as PostgreSQL stays away, well past maxRuns, then ends it done', async () => {
    const id = randomUUID();
    viaProxy.add(id);
    proxy.cut();
    await request(accountId, { id });
    // Every run loses its database: each is a transient failure, retried with backoff, never `failed`.
    await until('six runs during the outage', () => Promise.resolve((runs.get(id) ?? 0) >= 6 || undefined));
    expect(await task(id)).toMatchObject({ status: 'running', reason: null });
    proxy.forward();
    expect(await settled(id)).toMatchObject({ status: 'done', reason: null });
    const { rows } = await t.pool.query<{ runs: number; transient_failures: number }>(
      `select runs, transient_failures from recompute.sync_work where task_id = $1`,
      [id],
    );
    // No run counted against maxRuns (3) but the one that succeeded; every failure was transient.
    expect(rows[0]).toEqual({ runs: 1, transient_failures: (runs.get(id) ?? 0) - 1 });
  });

  it('fails a task whose recompute always exceeds statement_timeout after the retry budget (4 identical failures), retries_exhausted with the reason, instead of running it for ever', async () => {
    const id = randomUUID();
    timingOut.add(id);
    await request(accountId, { id });
    expect(await settled(id)).toMatchObject({
      status: 'failed',
      reason: 'retries_exhausted: 4 identical failures (57014: canceling statement due to statement timeout)',
    });
    expect(runs.get(id)).toBe(4);
    expect(exhausted).toEqual(['recompute.task-worker']);
  });

  it('gives a command without a task row (another producer) its row, and runs it', async () => {
    const id = await request(accountId, { row: false, trigger: 'cli' });
    expect(await settled(id)).toMatchObject({ status: 'done', trigger: 'cli', account_id: accountId });
  });

  it('runs a command delivered twice once', async () => {
    const id = randomUUID();
    await t.pool.query(
      `insert into control.sync_tasks (id, account_id, trigger, status, queued_at) values ($1, $2, 'api', 'queued', now())`,
      [id, accountId],
    );
    // Twice in one transaction (as a producer retry could) and once more afterwards.
    const cmd = command(accountId, id, 'api', null);
    await appender.append([cmd, cmd]);
    expect(await settled(id)).toMatchObject({ status: 'done' });
    await appender.append([command(accountId, id, 'api', null)]);
    const marker = await request(accountId);
    await settled(marker);
    expect(runs.get(id)).toBe(1);
    const { rows } = await t.pool.query(`select 1 from recompute.sync_work where task_id = $1`, [id]);
    expect(rows).toHaveLength(1);
  });

  it('keeps a task queued until the projector passes its barrier, by checkpoint or by its committed offset', async () => {
    const shop = (await createAccount(t.db, { name: 'Barrier' })).id;
    await setCheckpoint(0, 5);
    const byCheckpoint = await request(shop, {
      barrier: [{ topic: 'holdfast.commerce', partition: 0, offset: 10 }],
    });
    await new Promise((r) => setTimeout(r, 1_500));
    expect((await task(byCheckpoint))!.status).toBe('queued');
    expect(runs.get(byCheckpoint)).toBeUndefined();
    await setCheckpoint(0, 9);
    expect(await settled(byCheckpoint)).toMatchObject({ status: 'done' });

    // Checkpoint 7 of a barrier at 10: offsets 8 and 9 may be transaction markers the checkpoint
    // never reaches. The projector group's committed offset (10) says nothing below 10 is left.
    await setCheckpoint(1, 7);
    const byCommit = await request(shop, {
      barrier: [{ topic: 'holdfast.commerce', partition: 1, offset: 10 }],
    });
    await new Promise((r) => setTimeout(r, 1_000));
    expect((await task(byCommit))!.status).toBe('queued');
    const admin = t.verifier.admin();
    await admin.connect();
    try {
      // The group commits offsets up to the log's end only; give the partition ten records first.
      const producer = t.verifier.producer();
      await producer.connect();
      await producer.send({
        topic: topicName(t.topicPrefix, 'holdfast.commerce'),
        messages: Array.from({ length: 10 }, () => ({ partition: 1, value: 'x' })),
      });
      await producer.disconnect();
      await admin.setOffsets({
        groupId: PROJECTOR_GROUP(),
        topic: topicName(t.topicPrefix, 'holdfast.commerce'),
        partitions: [{ partition: 1, offset: '10' }],
      });
    } finally {
      await admin.disconnect();
    }
    expect(await settled(byCommit)).toMatchObject({ status: 'done' });
  });

  it('fails a task whose barrier is not passed in time, saying where the projector stands', async () => {
    const shop = (await createAccount(t.db, { name: 'Behind' })).id;
    const id = await request(shop, {
      barrier: [{ topic: 'holdfast.commerce', partition: 0, offset: 1_000_000 }],
    });
    const failed = await settled(id);
    expect(failed.status).toBe('failed');
    expect(failed.reason).toMatch(
      /^read_models_behind: the projector had not applied holdfast\.commerce\[0\] below offset 1000000 after \d+ s \(checkpoint 9, committed -1\)$/,
    );
    expect(runs.get(id)).toBeUndefined();
  });

  it('takes again a task whose worker died (lease run out), keeping its first start; a live lease is left alone', async () => {
    const dead = randomUUID();
    await t.pool.query(
      `insert into control.sync_tasks (id, account_id, trigger, status, queued_at, started_at)
       values ($1, $2, 'api', 'running', now(), now() - interval '5 seconds')`,
      [dead, accountId],
    );
    await t.pool.query(
      `insert into recompute.sync_work (task_id, account_id, trigger, requested_at, lease_owner, lease_until, claims, runs)
       values ($1, $2, 'api', now(), 'gone:1', now() - interval '1 second', 1, 1)`,
      [dead, accountId],
    );
    const done = await settled(dead);
    expect(done.status).toBe('done');
    expect(done.duration_ms as number).toBeGreaterThanOrEqual(5000);

    const other = (await createAccount(t.db, { name: 'Leased' })).id;
    const live = randomUUID();
    await t.pool.query(
      `insert into control.sync_tasks (id, account_id, trigger, status, queued_at, started_at)
       values ($1, $2, 'nightly', 'running', now(), now())`,
      [live, other],
    );
    await t.pool.query(
      `insert into recompute.sync_work (task_id, account_id, trigger, requested_at, lease_owner, lease_until, claims, runs)
       values ($1, $2, 'nightly', now(), 'elsewhere:1', now() + interval '1 hour', 1, 1)`,
      [live, other],
    );
    // Another task of that account is skipped: the running one holds a live lease.
    expect(await settled(await request(other))).toMatchObject({
      status: 'skipped',
      reason: 'already_running',
      orders_added: null,
    });
    expect(runs.get(live)).toBeUndefined();
    expect((await task(live))!.status).toBe('running');
  });

  it('fails a task that its workers died running three times (worker_lost)', async () => {
    const shop = (await createAccount(t.db, { name: 'Poison' })).id;
    const id = randomUUID();
    await t.pool.query(
      `insert into control.sync_tasks (id, account_id, trigger, status, queued_at, started_at)
       values ($1, $2, 'api', 'running', now(), now())`,
      [id, shop],
    );
    await t.pool.query(
      `insert into recompute.sync_work (task_id, account_id, trigger, requested_at, lease_owner, lease_until, claims, runs)
       values ($1, $2, 'api', now(), 'gone:2', now() - interval '1 second', 3, 3)`,
      [id, shop],
    );
    expect(await settled(id)).toMatchObject({
      status: 'failed',
      reason: 'worker_lost: the recompute stopped 3 times while running this task',
    });
    expect(runs.get(id)).toBeUndefined();
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

  it('keeps consuming, and lets the group rebalance, while a recompute runs', async () => {
    const slow = (await createAccount(t.db, { name: 'Slow' })).id;
    const id = randomUUID();
    let open!: () => void;
    gates.set(id, new Promise<void>((r) => (open = r)));
    await request(slow, { id });
    await until('the slow task to run', async () =>
      (await task(id))?.status === 'running' ? true : undefined,
    );
    // Recorded while the recompute runs: the consumer is not inside it.
    const later = await request((await createAccount(t.db, { name: 'Later' })).id);
    await until(
      'the later command to be recorded',
      async () => {
        const { rows } = await t.pool.query(`select 1 from recompute.sync_work where task_id = $1`, [later]);
        return rows.length ? true : undefined;
      },
      5_000,
    );
    // A member joining the group gets its assignment at once: nobody holds the rebalance up.
    // The joiner is a member of the client under test: members of one group share one protocol.
    const joiner = t.kafka.groupConsumer({
      groupId: `${t.topicPrefix}recompute-sync`,
      topics: [topicName(t.topicPrefix, 'holdfast.sync-commands')],
      fromBeginning: true,
      sessionTimeoutMs: 10_000,
      heartbeatIntervalMs: 1_000,
    });
    let joined = false;
    joiner.on('join', () => (joined = true));
    const started = Date.now();
    // Nothing resolved: what this member is handed stays uncommitted, so the real consumer reads it again.
    await joiner.run(() => Promise.resolve());
    await until('the new member to join', () => Promise.resolve(joined ? true : undefined), 20_000);
    expect(Date.now() - started).toBeLessThan(20_000);
    expect((await task(id))!.status).toBe('running');
    await joiner.stop();
    open();
    expect(await settled(id)).toMatchObject({ status: 'done' });
    expect(await settled(later)).toMatchObject({ status: 'done' });
    expect(runs.get(id)).toBe(1);
  });

  it('changes nothing twice when the commands are consumed again from offset 0', async () => {
    const before = await task(first);
    await consumer.stop();
    consumer = await consume('recompute-sync-replay');
    const fresh = (await createAccount(t.db, { name: 'Marker' })).id;
    await addRows(fresh, 1, 1);
    const marker = await request(fresh);
    // The new group read every command from offset 0 before the marker; the checkpoints and the work
    // rows made it run none of them again.
    expect(await settled(marker)).toMatchObject({ status: 'done', orders_added: 1, customers_added: 1 });
    expect(await task(first)).toEqual(before);
    expect(runs.get(first)).toBe(1);
    // The replay emitted no second sync.completed.
    expect(await syncCompletedOf(first)).toHaveLength(1);
  });
});
