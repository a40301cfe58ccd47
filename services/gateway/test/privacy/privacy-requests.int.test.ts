import { randomUUID } from 'node:crypto';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { NO_IDENTIFIER_ISSUE } from '@holdfast/domain';
import { createTestEnv, type TestEnv } from '@holdfast/testing';
import {
  call,
  newAccount,
  startGateway,
  type AccountFixture,
  type TestGateway,
} from '@holdfast/testing/services';
import { schemaErrors } from '@holdfast/testing/services';
import { ERASURE_NOT_FOUND } from '../../src/privacy/privacy-routes.js';

let t: TestEnv;
let gw: TestGateway;
let a: AccountFixture;
let b: AccountFixture;

beforeAll(async () => {
  t = await createTestEnv('gw-privacy');
  gw = await startGateway(t);
  a = await newAccount(t);
  b = await newAccount(t);
});
afterAll(async () => {
  await gw?.close();
  await t?.close();
});

const erase = (acc: AccountFixture, body: unknown, headers: Record<string, string> = {}) =>
  call(gw.url, 'POST', '/v1/erasures', { key: acc.key, body, headers });

describe('POST /v1/erasures and GET /v1/erasures/{erasure_id}', () => {
  it('queues an erasure (202, status_url) that stores blind indexes only, and reads it back', async () => {
    const r = await erase(a, { email: ' Ann@Example.com ', phone: '(415) 555-0132', external_id: 'c-1' });
    expect(r.status).toBe(202);
    expect(schemaErrors('ErasureQueued', r.json)).toEqual([]);
    expect(r.json).toEqual({
      erasure_id: expect.any(String),
      status: 'queued',
      status_url: `/v1/erasures/${r.json.erasure_id}`,
    });
    const s = await call(gw.url, 'GET', r.json.status_url, { key: a.key });
    expect(s.status).toBe(200);
    expect(schemaErrors('Erasure', s.json)).toEqual([]);
    expect(s.json).toMatchObject({
      erasure_id: r.json.erasure_id,
      status: 'queued',
      counters: null,
      reason: null,
    });
    // Nothing of the identifiers in clear, anywhere in the row.
    const { rows } = await t.pool.query('select * from privacy.erasure_requests where id = $1', [
      r.json.erasure_id,
    ]);
    const stored = JSON.stringify(rows[0]);
    for (const plain of ['ann@example.com', 'Ann@Example.com', '+14155550132', '5550132', '"c-1"'])
      expect(stored).not.toContain(plain);
    expect(rows[0]).toMatchObject({ account_id: a.accountId, requested_by: 'api', key_id: a.keyId });
    expect(rows[0].email_index).toMatch(/^[A-Za-z0-9_-]{22}$/);
  });

  it('is idempotent: the same person (however spelt) answers the same erasure; suppress or another person does not', async () => {
    const first = await erase(a, { email: 'bob@example.com' });
    const again = await erase(a, { email: '  BOB@example.com', phone: null });
    expect(again.status).toBe(202);
    expect(again.json.erasure_id).toBe(first.json.erasure_id);
    const suppressing = await erase(a, { email: 'bob@example.com', suppress: true });
    expect(suppressing.json.erasure_id).not.toBe(first.json.erasure_id);
    const other = await erase(a, { email: 'carl@example.com' });
    expect(other.json.erasure_id).not.toBe(first.json.erasure_id);
    // Another account asking about the same email gets its own erasure.
    const inB = await erase(b, { email: 'bob@example.com' });
    expect(inB.json.erasure_id).not.toBe(first.json.erasure_id);
  });

  it('honours Idempotency-Key: the same key answers the request first made with it', async () => {
    const k = randomUUID();
    const first = await erase(a, { external_id: 'k-1' }, { 'idempotency-key': k });
    const second = await erase(a, { external_id: 'k-2' }, { 'idempotency-key': k });
    expect(second.json.erasure_id).toBe(first.json.erasure_id);
    const inB = await erase(b, { external_id: 'k-1' }, { 'idempotency-key': k });
    expect(inB.json.erasure_id).not.toBe(first.json.erasure_id);
  });

  it.each([
    ['no identifier', {}, [NO_IDENTIFIER_ISSUE]],
    ['blank identifiers', { email: ' ', external_id: '' }, [NO_IDENTIFIER_ISSUE]],
    [
      'a bad email',
      { email: 'ann.example.com' },
      [{ type: 'value_error', loc: ['body', 'email'], msg: 'Value error, not a valid email address' }],
    ],
    [
      'a bad phone',
      { phone: '12' },
      [{ type: 'value_error', loc: ['body', 'phone'], msg: 'Value error, not a valid phone number' }],
    ],
    [
      'an unknown field',
      { email: 'a@b.co', name: 'Ann' },
      [{ type: 'extra_forbidden', loc: ['body', 'name'], msg: 'Extra inputs are not permitted' }],
    ],
  ])('answers 422 with the validation error body for %s (nothing queued)', async (_case, body, detail) => {
    const before = await t.pool.query('select count(*)::int as n from privacy.erasure_requests');
    const r = await erase(a, body);
    expect(r.status).toBe(422);
    expect(r.json).toEqual({ detail });
    expect(schemaErrors('ValidationErrorBody', r.json)).toEqual([]);
    const after = await t.pool.query('select count(*)::int as n from privacy.erasure_requests');
    expect(after.rows[0].n).toBe(before.rows[0].n);
  });

  it("tenant isolation: another account's key cannot read an erasure (404), nor can an unknown id", async () => {
    const r = await erase(a, { email: 'dora@example.com' });
    for (const [acc, id] of [
      [b, r.json.erasure_id],
      [a, randomUUID()],
      [a, 'not-a-uuid'],
    ] as const) {
      const s = await call(gw.url, 'GET', `/v1/erasures/${id}`, { key: acc.key });
      expect(s.status).toBe(404);
      expect(s.json).toEqual({ detail: ERASURE_NOT_FOUND });
    }
  });

  it('is authenticated like /ingest/*: no key or a bad key is 401', async () => {
    expect((await call(gw.url, 'POST', '/v1/erasures', { body: { email: 'a@b.co' } })).status).toBe(401);
    const bad = await call(gw.url, 'GET', `/v1/erasures/${randomUUID()}`, { key: 'tk_live_nope' });
    expect(bad.status).toBe(401);
    expect(bad.json).toEqual({ detail: expect.any(String) });
  });
});

describe('POST /v1/exports', () => {
  it('queues an export (202) whose status reads back; suppress is not a field of an export', async () => {
    const r = await call(gw.url, 'POST', '/v1/exports', { key: a.key, body: { external_id: 'c-1' } });
    expect(r.status).toBe(202);
    expect(schemaErrors('ExportQueued', r.json)).toEqual([]);
    const s = await call(gw.url, 'GET', r.json.status_url, { key: a.key });
    expect(schemaErrors('Export', s.json)).toEqual([]);
    expect(s.json).toMatchObject({ status: 'queued', download_url: null });
    expect((await call(gw.url, 'GET', r.json.status_url, { key: b.key })).status).toBe(404);
    expect((await call(gw.url, 'GET', `${r.json.status_url}/download`, { key: a.key })).status).toBe(404);
    const bad = await call(gw.url, 'POST', '/v1/exports', {
      key: a.key,
      body: { email: 'a@b.co', suppress: true },
    });
    expect(bad.status).toBe(422);
  });
});
