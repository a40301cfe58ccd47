import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createTestEnv, type TestEnv } from '@holdfast/testing';
import {
  call,
  newAccount,
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

const rows = [
  { external_id: 'C1', email: 'ann@example.com', subscription_status: 'active', consent: { sms: false } },
  { email: '  ', phone: null, name: 'Nobody' },
  { phone: '(415) 555-0132', subscription_status: null, favourite_colour: 'teal' },
  { external_id: 'C4', subscription_status: 'paused', subscription_started_at: '2024-01-02T10:00:00' },
];

beforeAll(async () => {
  t = await createTestEnv('gw-customers');
  gw = await startGateway(t);
  acc = await newAccount(t);
});

afterAll(async () => {
  await gw?.close();
  await t?.close();
});

describe('POST /ingest/customers', () => {
  it('answers received, customers_upserted, skipped_no_identity, subscriptions_applied', async () => {
    const r = await post('/ingest/customers', { customers: rows }, 'req-customers');
    expect(r.status).toBe(200);
    expect(r.json).toEqual({
      received: 4,
      customers_upserted: 3,
      skipped_no_identity: 1,
      subscriptions_applied: 2,
    });
  });

  it('dry run: the per-row shape of the orders dry run, nothing written', async () => {
    const r = await post('/ingest/customers?dry_run=true', { customers: rows }, 'req-customers-dry');
    expect(r.status).toBe(200);
    expect(r.json).toEqual({
      dry_run: true,
      received: 4,
      would_accept: 3,
      would_drop: 1,
      would_apply_subscriptions: 2,
      errors: [{ index: 1, external_id: null, codes: ['no_usable_identity'] }],
      warnings: [
        { index: 2, external_id: null, code: 'unknown_fields_ignored', fields: ['favourite_colour'] },
        {
          index: 3,
          external_id: 'C4',
          code: 'naive_timestamp_read_as_utc',
          fields: ['subscription_started_at'],
        },
      ],
      errors_truncated: 0,
      next: '1 row would be skipped (no external_id, email or phone): fix the rows listed in errors. Nothing was written: POST again without dry_run to write.',
    });
  });

  it('422 for a subscription_status outside the enum, even in a dry run', async () => {
    for (const path of ['/ingest/customers', '/ingest/customers?dry_run=true']) {
      const r = await post(path, { customers: [{ external_id: 'C9', subscription_status: 'trial' }] });
      expect(r.status).toBe(422);
      expect(r.json).toEqual({
        detail: [
          {
            type: 'enum',
            loc: ['body', 'customers', 0, 'subscription_status'],
            msg: "Input should be 'active', 'paused' or 'cancelled'",
            input: 'trial',
            ctx: { expected: "'active', 'paused' or 'cancelled'" },
          },
        ],
      });
    }
  });

  it('422 for a mistyped field and for a body without customers', async () => {
    const typed = await post('/ingest/customers', { customers: [{ email: 5 }] });
    expect(typed.status).toBe(422);
    expect(typed.json.detail[0]).toMatchObject({
      type: 'string_type',
      loc: ['body', 'customers', 0, 'email'],
    });
    const missing = await post('/ingest/customers', { orders: [] });
    expect(missing.status).toBe(422);
    expect(missing.json).toEqual({
      detail: [{ type: 'missing', loc: ['body', 'customers'], msg: 'Field required' }],
    });
  });

  it('400 for an empty batch; JSON 413 above 5,000 rows', async () => {
    const empty = await post('/ingest/customers', { customers: [] });
    expect(empty.status).toBe(400);
    expect(empty.json).toEqual({ detail: 'Empty batch: send 1 to 5000 customers.' });
    const many = await post('/ingest/customers', {
      customers: Array.from({ length: 5001 }, (_, i) => ({ external_id: `C${i}` })),
    });
    expect(many.status).toBe(413);
    expect(many.json).toEqual({ detail: 'Batch too large (5001 > 5000). Page your upload.' });
  });

  it('plain-text 413 for a streamed body over 32 MiB', async () => {
    const r = await streamBody(`${gw.url}/ingest/customers`, {
      key: acc.key,
      totalBytes: 40 * MiB,
      chunk: Buffer.alloc(MiB, ' '),
    });
    expect(r).toMatchObject({ status: 413, text: 'payload too large' });
    expect(r.contentType).toMatch(/^text\/plain/);
    expect(r.sentBeforeAnswer).toBeLessThan(40 * MiB);
  });

  it('appends one normalised CustomerUpserted per row with an identity, in one transaction with its record', async () => {
    const events = await readTopic(
      t,
      'holdfast.commerce',
      (es) => es.filter((e) => e.type === 'CustomerUpserted').length >= 3,
    );
    const customers = events.flatMap((e) => (e.type === 'CustomerUpserted' ? [e.value] : []));
    expect(customers.every((c) => c.metadata.request_id === 'req-customers')).toBe(true);
    expect(customers.map((c) => c.customer)).toMatchObject([
      {
        external_id: 'C1',
        email: 'ann@example.com',
        subscription_status: 'active',
        source_label: 'custom-api',
        consent: { sms: false, marketing_email: null },
      },
      { external_id: null, phone: '+14155550132', subscription_status: null },
      {
        external_id: 'C4',
        subscription_status: 'paused',
        subscription_started_at: '2024-01-02T10:00:00.000Z',
      },
    ]);
    const batches = await readTopic(t, 'holdfast.ingest-batches', (es) =>
      es.some((e) => e.type === 'IngestBatchRecorded' && e.value.metadata.request_id === 'req-customers-dry'),
    );
    const record = batches.find(
      (e) => e.type === 'IngestBatchRecorded' && e.value.metadata.request_id === 'req-customers',
    );
    expect(record?.value).toMatchObject({
      endpoint: 'POST /ingest/customers',
      status: 'accepted',
      received: 4,
      accepted: 3,
      dropped: 1,
      error_codes: ['no_usable_identity'],
      warning_codes: ['unknown_fields_ignored', 'naive_timestamp_read_as_utc'],
    });
    expect(JSON.stringify(batches)).not.toMatch(/example\.com|Nobody|4155550132/);
  });
});
