import { randomUUID } from 'node:crypto';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { connectProvider, connectTile } from '@holdfast/control-plane';
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
  runProjector,
} from '@holdfast/testing/services';

let t: TestEnv;
let gw: TestGateway;
let projector: RunningProjector;
let a: AccountFixture;
let b: AccountFixture;
const clock = new ManualClock(new Date());

const { get, health, batchesOf } = readSide(() => gw);

beforeAll(async () => {
  t = await createTestEnv('gw-readside');
  [gw, projector] = await Promise.all([startGateway(t, { clock }), runProjector(t)]);
  a = await newAccount(t);
  b = await newAccount(t);
});

afterAll(async () => {
  await projector?.stop();
  await gw?.close();
  await t?.close();
});

describe('GET /ingest/health', () => {
  it('reports a fresh account with next steps', async () => {
    expect(await health(a)).toEqual({
      ok: true,
      account_id: a.accountId,
      connected_integrations: [],
      orders_ingested: 0,
      store_timezone: null,
      hint: 'No orders yet: POST /ingest/orders (try ?dry_run=true first). Orders appear here once projected, within seconds. Set store_timezone with PATCH /ingest/account. Analytics recompute nightly at 02:00 UTC; POST /ingest/sync after large loads.',
    });
  });

  it('lists connected tiles and providers, with "awaiting setup" guidance before the first webhook call', async () => {
    await connectTile(t.db, a.accountId, 'custom_integration');
    await connectProvider(t.db, a.accountId, 'klaviyo', 'email', 'http://127.0.0.1:9/k');
    const h = await health(a);
    expect(h.connected_integrations).toEqual(['custom_integration', 'klaviyo']);
    expect(h.hint).toMatch(
      /^The custom integration tile shows "awaiting setup" until the first POST \/webhooks\/custom-api call/,
    );
  });

  it('counts the projected orders of this account only', async () => {
    const orders = Array.from({ length: 5 }, (_, i) =>
      orderRow({ order_id: `A${i}`, customer_id: `C${i % 3}` }),
    );
    expect((await call(gw.url, 'POST', '/ingest/orders', { key: a.key, body: { orders } })).status).toBe(200);
    await call(gw.url, 'POST', '/ingest/orders', {
      key: b.key,
      body: { orders: [orderRow({ order_id: 'A0' })] },
    });
    await until(
      () => health(a),
      (h) => h.orders_ingested === 5,
    );
    await until(
      () => health(b),
      (h) => h.orders_ingested === 1,
    );
  });
});

describe('PATCH /ingest/account', () => {
  it('accepts an IANA name and GET /ingest/health echoes it', async () => {
    const r = await call(gw.url, 'PATCH', '/ingest/account', {
      key: a.key,
      body: { store_timezone: 'America/Chicago' },
    });
    expect(r.status).toBe(200);
    expect(r.json).toEqual({ ok: true, store_timezone: 'America/Chicago' });
    await until(
      () => health(a),
      (h) => h.store_timezone === 'America/Chicago',
    );
  });

  it('422 for an abbreviation such as CST, and for a missing field', async () => {
    const cst = await call(gw.url, 'PATCH', '/ingest/account', {
      key: a.key,
      body: { store_timezone: 'CST' },
    });
    expect(cst.status).toBe(422);
    expect(cst.json).toEqual({
      detail: [
        {
          type: 'value_error',
          loc: ['body', 'store_timezone'],
          msg: "Value error, 'CST' is not an IANA timezone name (for example America/Chicago)",
          input: 'CST',
        },
      ],
    });
    const missing = await call(gw.url, 'PATCH', '/ingest/account', { key: a.key, body: {} });
    expect(missing.status).toBe(422);
    expect(missing.json).toEqual({
      detail: [{ type: 'missing', loc: ['body', 'store_timezone'], msg: 'Field required' }],
    });
  });
});

describe('GET /ingest/batches', () => {
  it("lists the account's calls, newest first, dry runs and rejections included, with client ids only", async () => {
    const send = (path: string, body: unknown, id: string) =>
      call(gw.url, 'POST', path, { key: a.key, body, headers: { 'x-request-id': id } });
    clock.advance(1000);
    await send(
      '/ingest/orders?dry_run=true',
      { orders: [orderRow({ order_id: 'D1', customer_id: '', email: null })] },
      'r-dry',
    );
    clock.advance(1000);
    await send('/ingest/orders', { orders: [] }, 'r-empty');
    const list = await until(
      () => batchesOf(a),
      (l) => l.some((x) => x.request_id === 'r-empty'),
    );
    expect(list[0]).toEqual({
      batch_id: expect.any(String),
      endpoint: 'POST /ingest/orders',
      dry_run: false,
      status: 'rejected',
      http_status: 400,
      received: 0,
      accepted: 0,
      dropped: 0,
      error_codes: ['empty_batch'],
      warning_codes: [],
      errors: null,
      duration_ms: expect.any(Number),
      sync_task_id: null,
      key_id: a.keyId,
      request_id: 'r-empty',
      received_at: expect.any(String),
    });
    expect(list[1]).toMatchObject({
      request_id: 'r-dry',
      dry_run: true,
      status: 'accepted',
      received: 1,
      accepted: 0,
      dropped: 1,
      errors: [{ index: 0, order_id: 'D1', codes: ['no_usable_identity'] }],
    });
    expect(list.map((x) => x.endpoint)).toEqual(
      expect.arrayContaining(['PATCH /ingest/account', 'POST /ingest/orders']),
    );
    expect(JSON.stringify(list)).not.toMatch(/example\.com/);
    expect(await batchesOf(a, '?limit=1')).toHaveLength(1);
  });

  it.each([
    ['0', { type: 'greater_than_equal', msg: 'Input should be greater than or equal to 1', ctx: { ge: 1 } }],
    ['201', { type: 'less_than_equal', msg: 'Input should be less than or equal to 200', ctx: { le: 200 } }],
    [
      'ten',
      { type: 'int_parsing', msg: 'Input should be a valid integer, unable to parse string as an integer' },
    ],
  ])('422 for limit=%s', async (limit, entry) => {
    const r = await get(a, `/ingest/batches?limit=${limit}`);
    expect(r.status).toBe(422);
    expect(r.json).toEqual({ detail: [{ loc: ['query', 'limit'], input: limit, ...entry }] });
  });

  it("never lists records older than 90 days; deleting them is the projector's, not the janitor's", async () => {
    const old = randomUUID();
    await t.pool.query(
      `insert into read_models.ingest_batches (batch_id, account_id, endpoint, dry_run, status, http_status,
         received, accepted, dropped, duration_ms, received_at)
       values ($1, $2, 'POST /ingest/orders', false, 'accepted', 200, 1, 1, 0, 3, $3)`,
      [old, a.accountId, new Date(clock.now().getTime() - 91 * 86_400_000)],
    );
    expect((await batchesOf(a, '?limit=200')).some((x) => x.batch_id === old)).toBe(false);
    await gw.gateway.janitor.runOnce();
    const { rows } = await t.pool.query(`select 1 from read_models.ingest_batches where batch_id = $1`, [
      old,
    ]);
    expect(rows).toHaveLength(1);
  });
});
