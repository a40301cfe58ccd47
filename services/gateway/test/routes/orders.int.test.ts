import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { naiveTimestampWarning, nextHint } from '@holdfast/domain';
import { createTestEnv, type TestEnv } from '@holdfast/testing';
import {
  call,
  newAccount,
  orderRow,
  startGateway,
  type AccountFixture,
  type TestGateway,
} from '@holdfast/testing/services';
import { readTopic } from '../test-support/topic-reader.js';

let t: TestEnv;
let gw: TestGateway;
let acc: AccountFixture;

const post = (path: string, body: unknown, requestId?: string) =>
  call(gw.url, 'POST', path, { key: acc.key, body, headers: requestId ? { 'x-request-id': requestId } : {} });

// One batch exercising every row outcome: a duplicate, a naive date, no identity, an unparseable
// date, an unknown field, and an identity carried by email only.
const mixed = [
  orderRow({ order_id: 'A1', customer_id: 'C1', order_amount: 10 }),
  orderRow({ order_id: 'A2', customer_id: 'C2', order_date: '2024-01-03T10:00:00' }),
  orderRow({ order_id: 'A1', customer_id: 'C1', order_amount: 11, currency: 'eur' }),
  orderRow({ order_id: 'A3', customer_id: '', email: null }),
  orderRow({ order_id: 'A4', order_date: 'yesterday' }),
  orderRow({ order_id: 'A5', line_items: [{ sku: 'x' }] }),
  orderRow({ order_id: 'A6', customer_id: '', email: 'Bob@Example.com' }),
];
const mixedCounters = {
  received: 7,
  distinct_order_ids: 6,
  deduped_in_batch: 1,
  accepted: 4,
  dropped_invalid: 2,
  naive_timestamps: 1,
};

beforeAll(async () => {
  t = await createTestEnv('gw-orders');
  gw = await startGateway(t);
  acc = await newAccount(t);
});

afterAll(async () => {
  await gw?.close();
  await t?.close();
});

describe('POST /ingest/orders', () => {
  it('answers the exact counters of a mixed batch, with the warning when a date was naive', async () => {
    const r = await post('/ingest/orders', { orders: mixed }, 'req-mixed');
    expect(r.status).toBe(200);
    expect(r.headers.get('x-request-id')).toBe('req-mixed');
    expect(r.json).toEqual({
      ...mixedCounters,
      orders_upserted: 4,
      customers_upserted: 3,
      next: nextHint({ ...mixedCounters, dropped_suppressed: 0 }),
      warning: naiveTimestampWarning(1),
    });
  });

  it('leaves `warning` out when no order_date was naive', async () => {
    const r = await post('/ingest/orders', { orders: [orderRow({ order_id: 'B1' })] });
    expect(r.status).toBe(200);
    expect(r.json).not.toHaveProperty('warning');
    expect(r.json).toMatchObject({
      received: 1,
      accepted: 1,
      orders_upserted: 1,
      customers_upserted: 1,
      naive_timestamps: 0,
    });
  });

  it('dry run: the spec body, classified by the same function, nothing written', async () => {
    const r = await post('/ingest/orders?dry_run=true', { orders: mixed }, 'req-dry');
    expect(r.status).toBe(200);
    expect(r.json).toEqual({
      dry_run: true,
      received: 7,
      would_accept: 4,
      would_drop: 2,
      errors: [
        { index: 3, order_id: 'A3', codes: ['no_usable_identity'] },
        { index: 4, order_id: 'A4', codes: ['unparseable_order_date_or_amount'] },
      ],
      warnings: [
        { index: 0, order_id: 'A1', code: 'duplicate_in_batch_last_wins' },
        { index: 1, order_id: 'A2', code: 'naive_timestamp_read_as_utc' },
        { index: 5, order_id: 'A5', code: 'unknown_fields_ignored', fields: ['line_items'] },
      ],
      errors_truncated: 0,
      next: nextHint({ ...mixedCounters, dropped_suppressed: 0 }, { dryRun: true }),
    });
  });

  it('dry run: at most 50 errors and 50 warnings, the rest counted in errors_truncated', async () => {
    const rows = [
      ...Array.from({ length: 60 }, (_, i) => orderRow({ order_id: `E${i}`, order_date: 'never' })),
      ...Array.from({ length: 55 }, (_, i) =>
        orderRow({ order_id: `W${i}`, order_date: '2024-01-02T10:00' }),
      ),
    ];
    const r = await post('/ingest/orders?dry_run=1', { orders: rows });
    expect(r.json).toMatchObject({ received: 115, would_accept: 55, would_drop: 60, errors_truncated: 10 });
    expect(r.json.errors).toHaveLength(50);
    expect(r.json.warnings).toHaveLength(50);
  });

  it('a currency longer than 3 letters fails the whole batch: 422 naming the rows, nothing written', async () => {
    const rows = [
      orderRow({ order_id: 'X1' }),
      orderRow({ order_id: 'X2', currency: 'USDX' }),
      orderRow({ order_id: 'X3', currency: 'EURO' }),
    ];
    const r = await post('/ingest/orders', { orders: rows }, 'req-currency');
    expect(r.status).toBe(422);
    const msg =
      'Currency must be a 3-letter ISO 4217 code; one invalid currency fails the whole batch and nothing was written';
    expect(r.json).toEqual({
      detail: [
        {
          type: 'invalid_currency_code_fails_whole_batch',
          loc: ['body', 'orders', 1, 'currency'],
          msg,
          input: 'USDX',
        },
        {
          type: 'invalid_currency_code_fails_whole_batch',
          loc: ['body', 'orders', 2, 'currency'],
          msg,
          input: 'EURO',
        },
      ],
    });
    const dry = await post('/ingest/orders?dry_run=true', { orders: rows });
    expect(dry.json).toMatchObject({
      would_accept: 0,
      would_drop: 3,
      errors: [
        { index: 1, order_id: 'X2', codes: ['invalid_currency_code_fails_whole_batch'] },
        { index: 2, order_id: 'X3', codes: ['invalid_currency_code_fails_whole_batch'] },
      ],
    });
  });

  it('422 for a missing or mistyped required field, with loc [body, orders, i, field]', async () => {
    const missing = orderRow({ order_id: 'M1' });
    delete missing.product_name;
    const r = await post('/ingest/orders', {
      orders: [orderRow(), missing, orderRow({ order_amount: '12.50' })],
    });
    expect(r.status).toBe(422);
    expect(r.json).toEqual({
      detail: [
        { type: 'missing', loc: ['body', 'orders', 1, 'product_name'], msg: 'Field required' },
        {
          type: 'float_type',
          loc: ['body', 'orders', 2, 'order_amount'],
          msg: 'Input should be a valid number',
          input: '12.50',
        },
      ],
    });
    const dry = await post('/ingest/orders?dry_run=true', { orders: [missing] });
    expect(dry.status).toBe(422);
  });

  it('422 for a body that is not JSON and for a bad dry_run flag', async () => {
    const r = await call(gw.url, 'POST', '/ingest/orders', { key: acc.key, rawBody: '{"orders": [' });
    expect(r.status).toBe(422);
    expect(r.json.detail[0]).toMatchObject({ type: 'json_invalid', msg: 'JSON decode error' });
    const flag = await post('/ingest/orders?dry_run=maybe', { orders: [orderRow()] });
    expect(flag.status).toBe(422);
    expect(flag.json).toEqual({
      detail: [
        {
          type: 'bool_parsing',
          loc: ['query', 'dry_run'],
          msg: 'Input should be a valid boolean, unable to interpret input',
          input: 'maybe',
        },
      ],
    });
  });

  it('appends exactly the accepted orders, normalised, and records every call, rejections and dry runs included', async () => {
    await post('/ingest/orders', { orders: [orderRow({ order_id: 'SENTINEL' })] }, 'req-sentinel');
    const commerce = await readTopic(t, 'holdfast.commerce', (es) =>
      es.some((e) => e.type === 'OrderUpserted' && e.value.order.order_id === 'SENTINEL'),
    );
    const byRequest = (id: string) =>
      commerce.filter((e) => e.type === 'OrderUpserted' && e.value.metadata.request_id === id);
    const mixedOrders = byRequest('req-mixed').map((e) =>
      e.type === 'OrderUpserted' ? e.value.order : null,
    );
    expect(mixedOrders.map((o) => o?.order_id)).toEqual(['A1', 'A2', 'A5', 'A6']);
    expect(mixedOrders[0]).toMatchObject({
      order_amount: 11,
      currency: 'EUR',
      order_date: '2024-01-02T10:00:00.000Z',
    });
    expect(mixedOrders[1]).toMatchObject({ order_date: '2024-01-03T10:00:00.000Z' });
    expect(mixedOrders[3]).toMatchObject({ customer_id: null, email: 'bob@example.com' });
    expect(byRequest('req-dry')).toEqual([]);
    expect(byRequest('req-currency')).toEqual([]);

    const batches = await readTopic(t, 'holdfast.ingest-batches', (es) =>
      es.some((e) => e.type === 'IngestBatchRecorded' && e.value.metadata.request_id === 'req-sentinel'),
    );
    const record = (id: string) =>
      batches.flatMap((e) =>
        e.type === 'IngestBatchRecorded' && e.value.metadata.request_id === id ? [e.value] : [],
      )[0];
    expect(record('req-mixed')).toMatchObject({
      endpoint: 'POST /ingest/orders',
      dry_run: false,
      status: 'accepted',
      http_status: 200,
      received: 7,
      accepted: 4,
      dropped: 2,
      error_codes: ['no_usable_identity', 'unparseable_order_date_or_amount'],
      warning_codes: [
        'duplicate_in_batch_last_wins',
        'naive_timestamp_read_as_utc',
        'unknown_fields_ignored',
      ],
      metadata: { account_id: acc.accountId, key_id: acc.keyId },
    });
    expect(JSON.parse(record('req-mixed')!.errors_json!)).toEqual([
      { index: 3, order_id: 'A3', codes: ['no_usable_identity'] },
      { index: 4, order_id: 'A4', codes: ['unparseable_order_date_or_amount'] },
    ]);
    expect(record('req-dry')).toMatchObject({ dry_run: true, status: 'accepted', accepted: 4, dropped: 2 });
    expect(record('req-currency')).toMatchObject({
      status: 'rejected',
      http_status: 422,
      received: 3,
      accepted: 0,
      error_codes: ['invalid_currency_code_fails_whole_batch'],
    });
    // Batch records carry client ids and codes, never emails (the rows above all had one).
    expect(JSON.stringify(batches)).not.toMatch(/example\.com/i);
  });
});
