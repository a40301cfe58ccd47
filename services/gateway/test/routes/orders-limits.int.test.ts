import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createTestEnv, type TestEnv } from '@holdfast/testing';
import {
  call,
  newAccount,
  orderRow,
  startGateway,
  type AccountFixture,
  type TestGateway,
} from '@holdfast/testing/services';
import { streamBody } from '../test-support/stream-body.js';
import { readTopic } from '../test-support/topic-reader.js';

let t: TestEnv;
let gw: TestGateway;
let acc: AccountFixture;
const MiB = 1024 * 1024;

const post = (path: string, body: unknown, requestId?: string) =>
  call(gw.url, 'POST', path, { key: acc.key, body, headers: requestId ? { 'x-request-id': requestId } : {} });

beforeAll(async () => {
  t = await createTestEnv('gw-orders-limits');
  gw = await startGateway(t);
  acc = await newAccount(t);
});

afterAll(async () => {
  await gw?.close();
  await t?.close();
});

describe('POST /ingest/orders: row and byte limits', () => {
  it('an empty batch is a 400', async () => {
    const r = await post('/ingest/orders', { orders: [] });
    expect(r.status).toBe(400);
    expect(r.json).toEqual({ detail: 'Empty batch: send 1 to 5000 orders.' });
  });

  it('5,000 rows are accepted; 5,001 are the JSON 413', async () => {
    const rows = (n: number) =>
      Array.from({ length: n }, (_, i) => orderRow({ order_id: `N${i}`, customer_id: `C${i % 700}` }));
    const ok = await post('/ingest/orders', { orders: rows(5000) });
    expect(ok.status).toBe(200);
    expect(ok.json).toMatchObject({
      received: 5000,
      accepted: 5000,
      orders_upserted: 5000,
      customers_upserted: 700,
    });
    const tooMany = await post('/ingest/orders', { orders: rows(5001) }, 'req-5001');
    expect(tooMany.status).toBe(413);
    expect(tooMany.headers.get('content-type')).toMatch(/^application\/json/);
    expect(tooMany.json).toEqual({ detail: 'Batch too large (5001 > 5000). Page your upload.' });
  });

  it('a body over 32 MiB, streamed for real, gets the plain-text 413 before it has all been sent', async () => {
    const r = await streamBody(`${gw.url}/ingest/orders`, {
      key: acc.key,
      totalBytes: 64 * MiB,
      chunk: Buffer.alloc(MiB, ' '),
    });
    expect(r.status).toBe(413);
    expect(r.contentType).toMatch(/^text\/plain/);
    expect(r.text).toBe('payload too large');
    expect(r.sentBeforeAnswer).toBeGreaterThan(32 * MiB);
    expect(r.sentBeforeAnswer).toBeLessThan(64 * MiB);
    // The connection was drained, not reset: the gateway still answers.
    expect((await call(gw.url, 'GET', '/ingest/health', { key: acc.key })).status).toBe(200);
  });

  it('a declared Content-Length over 32 MiB is refused before a byte of the body is read', async () => {
    const r = await streamBody(`${gw.url}/ingest/orders`, {
      key: acc.key,
      totalBytes: 10,
      chunk: Buffer.from('{"orders":'),
      declaredLength: 32 * MiB + 1,
    });
    expect(r).toMatchObject({ status: 413, text: 'payload too large', sentBeforeAnswer: 10 });
  });

  it('a body of exactly 32 MiB is read (unknown fields are discarded, not stored)', async () => {
    const head = JSON.stringify({ orders: [orderRow({ order_id: 'BIG', notes: '' })] });
    const pad = 32 * MiB - Buffer.byteLength(head);
    const body = head.replace('"notes":""', `"notes":"${'x'.repeat(pad)}"`);
    expect(Buffer.byteLength(body)).toBe(32 * MiB);
    const r = await call(gw.url, 'POST', '/ingest/orders', { key: acc.key, rawBody: body });
    expect(r.status).toBe(200);
    expect(r.json).toMatchObject({ accepted: 1 });
  });

  it('records the rejected calls (the 400 and the JSON 413) with their codes', async () => {
    const batches = await readTopic(t, 'holdfast.ingest-batches', (es) =>
      es.some((e) => e.type === 'IngestBatchRecorded' && e.value.metadata.request_id === 'req-5001'),
    );
    const records = batches.flatMap((e) => (e.type === 'IngestBatchRecorded' ? [e.value] : []));
    expect(records.find((r) => r.metadata.request_id === 'req-5001')).toMatchObject({
      status: 'rejected',
      http_status: 413,
      received: 5001,
      error_codes: ['batch_too_large'],
    });
    expect(records.find((r) => r.http_status === 400)).toMatchObject({
      status: 'rejected',
      error_codes: ['empty_batch'],
    });
  });
});
