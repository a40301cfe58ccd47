import { randomUUID } from 'node:crypto';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { RunningConsumer } from '@holdfast/kafka';
import { createTestEnv, type TestEnv, until } from '@holdfast/testing';
import type { RunningProjector } from '@holdfast/projections';
import {
  readSide,
  call,
  ManualClock,
  newAccount,
  orderRow,
  startGateway,
  type AccountFixture,
  type TestGateway,
} from '@holdfast/testing/services';
import { runProjector, runSyncConsumer } from '@holdfast/testing/services';

let t: TestEnv;
let gw: TestGateway;
let projector: RunningProjector;
let syncConsumer: RunningConsumer;
let a: AccountFixture;
let b: AccountFixture;
const clock = new ManualClock(new Date());

const { get, health, batchesOf } = readSide(() => gw);

beforeAll(async () => {
  t = await createTestEnv('gw-sync');
  [gw, projector, syncConsumer] = await Promise.all([
    startGateway(t, { clock }),
    runProjector(t),
    runSyncConsumer(t),
  ]);
  a = await newAccount(t);
  b = await newAccount(t);
  // A: five orders and a timezone; B: one order. Both projected before the tests start.
  const orders = Array.from({ length: 5 }, (_, i) =>
    orderRow({ order_id: `A${i}`, customer_id: `C${i % 3}` }),
  );
  await call(gw.url, 'POST', '/ingest/orders', { key: a.key, body: { orders } });
  await call(gw.url, 'POST', '/ingest/orders', {
    key: b.key,
    body: { orders: [orderRow({ order_id: 'A0' })] },
  });
  await call(gw.url, 'PATCH', '/ingest/account', { key: a.key, body: { store_timezone: 'America/Chicago' } });
  await until(
    () => health(a),
    (h) => h.orders_ingested === 5 && h.store_timezone === 'America/Chicago',
  );
  await until(
    () => health(b),
    (h) => h.orders_ingested === 1,
  );
});

afterAll(async () => {
  await syncConsumer?.stop();
  await projector?.stop();
  await gw?.close();
  await t?.close();
});

describe('POST /ingest/sync and GET /ingest/sync/{task_id}', () => {
  let taskId: string;

  it('queues a task that the recompute consumer runs to done, with counters', async () => {
    const q = await call(gw.url, 'POST', '/ingest/sync', { key: a.key });
    expect(q.status).toBe(200);
    taskId = q.json.task_id;
    const queued = await get(a, `/ingest/sync/${taskId}`);
    expect(queued.json).toMatchObject({ task_id: taskId, queued_at: clock.now().toISOString() });
    const done = await until(
      () => get(a, `/ingest/sync/${taskId}`),
      (r) => r.json.status === 'done',
    );
    const { rows } = await t.pool.query<{ n: number }>(
      `select count(*)::int as n from read_models.customers where account_id = $1`,
      [a.accountId],
    );
    expect(done.json).toEqual({
      task_id: taskId,
      queued_at: clock.now().toISOString(),
      status: 'done',
      orders_added: 5,
      customers_added: rows[0]!.n,
      duration_ms: expect.any(Number),
    });
    const batches = await until(
      () => batchesOf(a),
      (l) => l.some((x) => x.sync_task_id === taskId),
    );
    expect(batches.find((x) => x.sync_task_id === taskId)).toMatchObject({
      endpoint: 'POST /ingest/sync',
      status: 'queued',
    });
  });

  it('skips a task queued while another task of the account is running (reason already_running)', async () => {
    await t.pool.query(
      `insert into control.sync_tasks (id, account_id, trigger, status, queued_at, started_at)
       values ($1, $2, 'nightly', 'running', now(), now())`,
      [randomUUID(), a.accountId],
    );
    clock.advance(10 * 60_000);
    const q = await call(gw.url, 'POST', '/ingest/sync', { key: a.key });
    expect(q.status).toBe(200);
    const skipped = await until(
      () => get(a, `/ingest/sync/${q.json.task_id}`),
      (r) => r.json.status === 'skipped',
    );
    expect(skipped.json).toEqual({
      task_id: q.json.task_id,
      queued_at: clock.now().toISOString(),
      status: 'skipped',
      reason: 'already_running',
    });
  });

  it('404 for an unknown or malformed task id', async () => {
    for (const id of [randomUUID(), 'not-a-uuid']) {
      const r = await get(a, `/ingest/sync/${id}`);
      expect(r.status).toBe(404);
      expect(r.json).toEqual({ detail: 'Sync task not found.' });
    }
  });

  it("tenant isolation: account B never sees or changes A's tasks, batches, settings or counts", async () => {
    expect((await get(b, `/ingest/sync/${taskId}`)).status).toBe(404);
    const bBatches = await until(
      () => batchesOf(b, '?limit=200'),
      (l) => l.length >= 1,
    );
    expect(bBatches.every((x) => x.key_id === b.keyId)).toBe(true);
    expect((await batchesOf(a, '?limit=200')).some((x) => x.key_id === b.keyId)).toBe(false);
    const bHealth = await health(b);
    expect(bHealth).toMatchObject({
      account_id: b.accountId,
      orders_ingested: 1,
      store_timezone: null,
      connected_integrations: [],
    });
    await call(gw.url, 'PATCH', '/ingest/account', { key: b.key, body: { store_timezone: 'Europe/Paris' } });
    await until(
      () => health(b),
      (h) => h.store_timezone === 'Europe/Paris',
    );
    expect((await health(a)).store_timezone).toBe('America/Chicago');
    // A's sync throttle does not apply to B, and B's task is B's alone.
    const bSync = await call(gw.url, 'POST', '/ingest/sync', { key: b.key });
    expect(bSync.status).toBe(200);
    expect((await get(a, `/ingest/sync/${bSync.json.task_id}`)).status).toBe(404);
    // An account id in the header cannot redirect B's key to A.
    const spoof = await call(gw.url, 'GET', '/ingest/health', {
      key: b.key,
      headers: { 'x-service-account-id': a.accountId },
    });
    expect(spoof.status).toBe(401);
  });
});
