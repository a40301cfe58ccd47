import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { revokePixelKey } from '@holdfast/db';
import { createTestEnv, type TestEnv } from '@holdfast/testing';
import { call, ManualClock } from '../test-support/harness.js';
import { startWebStack, type WebStack } from '../webhooks/testing/web-stack.js';
import { PREFLIGHT_REFUSED_DETAIL } from './cors.js';
import { collect, pixelEvent, pixelKey } from './testing/collector-client.js';

let t: TestEnv;
let stack: WebStack;

beforeAll(async () => {
  t = await createTestEnv('pixellimits');
  stack = await startWebStack(t);
});

afterAll(async () => {
  await stack?.close();
  await t?.close();
});

describe('POST /pixel/collect rate limits (shared counters)', () => {
  const clock = new ManualClock(new Date('2030-01-01T00:00:20Z'));
  const window = new Date('2030-01-01T00:00:00Z');
  // Two gateways on one database stand for two gateway processes.
  let a: WebStack;
  let b: WebStack;
  beforeAll(async () => {
    a = await startWebStack(t, { clock });
    b = await startWebStack(t, { clock });
  });
  afterAll(async () => {
    await a?.close();
    await b?.close();
  });

  const seed = (bucket: string, count: number) =>
    t.pool.query(`insert into control.rate_counters (bucket, window_start, count) values ($1, $2, $3)`, [
      bucket,
      window,
      count,
    ]);

  it('given 599 calls from one IP this minute, when gateway A takes one more, then gateway B refuses the next with 429', async () => {
    const k = await pixelKey(t);
    const ip = '203.0.113.99';
    await seed(`pixel:ip:${ip}`, 599);
    expect((await collect(a.url, { key: k.key, events: [pixelEvent()] }, { ip })).status).toBe(204);
    const res = await collect(b.url, { key: k.key, events: [pixelEvent()] }, { ip });
    expect(res.status).toBe(429);
    expect(res.headers.get('retry-after')).toBe('40');
    expect(res.json.detail).toBe('Rate limit exceeded, try again in about 40 seconds');
  });

  it('given 6,000 calls of one key this minute, when it posts from a fresh IP, then 429', async () => {
    const k = await pixelKey(t);
    await seed(`pixel:key:${k.keyId}`, 6_000);
    const res = await collect(a.url, { key: k.key, events: [pixelEvent()] }, { ip: '203.0.113.100' });
    expect(res.status).toBe(429);
    expect(res.headers.get('retry-after')).toBe('40');
  });
});

describe('OPTIONS /pixel/collect (CORS preflight)', () => {
  const preflight = (origin: string) =>
    call(stack.url, 'OPTIONS', '/pixel/collect', {
      headers: {
        origin,
        'access-control-request-method': 'POST',
        'access-control-request-headers': 'content-type',
      },
    });

  it('given an origin on a live key, when preflighted, then 204 allowing POST with Content-Type', async () => {
    await pixelKey(t, ['https://allowed.example.com']);
    const res = await preflight('https://allowed.example.com');
    expect(res.status).toBe(204);
    expect(res.headers.get('access-control-allow-origin')).toBe('https://allowed.example.com');
    expect(res.headers.get('access-control-allow-methods')).toBe('POST');
    expect(res.headers.get('access-control-allow-headers')).toBe('Content-Type');
    expect(res.headers.get('access-control-max-age')).toBe('7200');
  });

  it('given an origin on no key (or only on a revoked one), when preflighted, then 403 without CORS headers', async () => {
    const k = await pixelKey(t, ['https://gone.example.com']);
    await revokePixelKey(t.db, k.keyId);
    await new Promise((r) => setTimeout(r, 1_100)); // the directory caches for at most one second
    for (const origin of ['https://nowhere.example.com', 'https://gone.example.com']) {
      const res = await preflight(origin);
      expect(res.status).toBe(403);
      expect(res.json).toEqual({ detail: PREFLIGHT_REFUSED_DETAIL });
      expect(res.headers.get('access-control-allow-origin')).toBeNull();
    }
  });
});
