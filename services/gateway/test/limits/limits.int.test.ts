import { randomUUID } from 'node:crypto';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { connectTile, createAccount, mintApiKey } from '@holdfast/control-plane';
import { createTestEnv, type TestEnv } from '@holdfast/testing';
import { buildOpenApiDocument } from '../../src/openapi/document.js';
import {
  call,
  ManualClock,
  newAccount,
  startGateway,
  type AccountFixture,
  type TestGateway,
} from '@holdfast/testing/services';

let t: TestEnv;
let gw: TestGateway;
let acc: AccountFixture;
const clock = new ManualClock(new Date('2030-01-01T00:00:10Z'));

/** Sends `n` requests, `parallel` at a time, and returns their statuses. */
async function burst(n: number, send: () => Promise<{ status: number }>, parallel = 16): Promise<number[]> {
  const statuses: number[] = [];
  for (let i = 0; i < n; i += parallel) {
    const wave = await Promise.all(Array.from({ length: Math.min(parallel, n - i) }, send));
    statuses.push(...wave.map((r) => r.status));
  }
  return statuses;
}

beforeAll(async () => {
  t = await createTestEnv('gw-limits');
  gw = await startGateway(t, { clock });
  acc = await newAccount(t);
});

afterAll(async () => {
  await gw?.close();
  await t?.close();
});

describe('600 requests per minute per ingest key', () => {
  it('answers the 601st request of a minute with 429, Retry-After and the spec detail', async () => {
    const statuses = await burst(600, () => call(gw.url, 'GET', '/ingest/health', { key: acc.key }));
    expect(statuses.every((s) => s === 200)).toBe(true);
    const r = await call(gw.url, 'GET', '/ingest/health', { key: acc.key });
    expect(r.status).toBe(429);
    expect(r.headers.get('retry-after')).toBe('50');
    expect(r.json).toEqual({ detail: 'Rate limit exceeded, try again in about 50 seconds' });
    // Every ingest route counts, and is refused alike.
    expect(
      (await call(gw.url, 'POST', '/ingest/orders', { key: acc.key, body: { orders: [] } })).status,
    ).toBe(429);
    // The limit is per key: another key of the same account is not affected.
    const other = await mintApiKey(t.db, acc.accountId, 'ingest_live');
    expect((await call(gw.url, 'GET', '/ingest/health', { key: other.key })).status).toBe(200);
    clock.advance(50_000);
    expect((await call(gw.url, 'GET', '/ingest/health', { key: acc.key })).status).toBe(200);
  });

  it('counts the legacy tile token per account', async () => {
    const { id } = await createAccount(t.db, { name: 'Legacy' });
    const { token } = await connectTile(t.db, id, 'custom_integration');
    await call(gw.url, 'GET', `/ingest/health?account_id=${id}&token=${token}`);
    await call(gw.url, 'GET', '/ingest/health', { key: token, headers: { 'x-service-account-id': id } });
    const { rows } = await t.pool.query<{ count: number }>(
      `select count from control.rate_counters where bucket = $1`,
      [`req:acct:${id}`],
    );
    expect(rows).toEqual([{ count: 2 }]);
  });
});

describe('one sync per 10 minutes per account', () => {
  it('queues, then answers 429 with Retry-After until 10 minutes have passed', async () => {
    clock.set(new Date('2030-01-01T01:00:00Z'));
    const first = await call(gw.url, 'POST', '/ingest/sync', { key: acc.key });
    expect(first.status).toBe(200);
    expect(first.json).toEqual({
      queued: true,
      task_id: expect.stringMatching(/^[0-9a-f-]{36}$/),
      status_url: `/ingest/sync/${first.json.task_id}`,
      message: expect.any(String),
    });
    const again = await call(gw.url, 'POST', '/ingest/sync', { key: acc.key });
    expect(again.status).toBe(429);
    expect(again.headers.get('retry-after')).toBe('600');
    expect(again.json).toEqual({ detail: 'Rate limit exceeded, try again in about 600 seconds' });
    clock.advance(9 * 60_000 + 30_000);
    const later = await call(gw.url, 'POST', '/ingest/sync', { key: acc.key });
    expect(later.status).toBe(429);
    expect(later.headers.get('retry-after')).toBe('30');
    // Another account is not throttled by this one.
    const b = await newAccount(t);
    expect((await call(gw.url, 'POST', '/ingest/sync', { key: b.key })).status).toBe(200);
    clock.advance(30_000);
    expect((await call(gw.url, 'POST', '/ingest/sync', { key: acc.key })).status).toBe(200);
  });
});

describe('operations', () => {
  it('GET /readyz answers 200 once PostgreSQL answers; /metrics serves Prometheus text', async () => {
    const ready = await call(gw.url, 'GET', '/readyz');
    expect(ready.status).toBe(200);
    expect(ready.json).toEqual({ ready: true, checks: { postgres: 'ok' } });
    const metrics = await call(gw.url, 'GET', '/metrics');
    expect(metrics.status).toBe(200);
    expect(metrics.text).toMatch(
      /holdfast_http_requests_total\{[^}]*route="\/ingest\/\*",status="429"[^}]*\} 1\n/,
    );
    expect(metrics.text).toMatch(
      /holdfast_http_requests_total\{[^}]*route="\/ingest\/sync",status="429"[^}]*\} 2\n/,
    );
  });

  it('unknown routes are a JSON 404', async () => {
    const r = await call(gw.url, 'GET', '/nope');
    expect(r.status).toBe(404);
    expect(r.json).toEqual({ detail: 'Not Found' });
  });

  it('serves /v1/openapi.json, and every route it describes is served', async () => {
    const r = await call(gw.url, 'GET', '/v1/openapi.json');
    expect(r.status).toBe(200);
    expect(r.json).toEqual(JSON.parse(JSON.stringify(buildOpenApiDocument())));
    const fresh = await newAccount(t);
    for (const [path, ops] of Object.entries(r.json.paths as Record<string, object>)) {
      for (const method of Object.keys(ops)) {
        const answer = await call(
          gw.url,
          method.toUpperCase(),
          path.replace(/\{(task_id|erasure_id|export_id)\}/, randomUUID()),
          {
            key: fresh.key,
          },
        );
        expect(answer.json, `${method} ${path}`).not.toEqual({ detail: 'Not Found' });
      }
    }
  });
});
