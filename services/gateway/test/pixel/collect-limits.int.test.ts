import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { revokePixelKey } from '@holdfast/control-plane';
import { createTestEnv, type TestEnv } from '@holdfast/testing';
import { call, ManualClock, startGateway, type TestGateway } from '@holdfast/testing/services';
import { PREFLIGHT_REFUSED_DETAIL } from '../../src/pixel/cors.js';
import { collect, pixelEvent, pixelKey } from './testing/collector-client.js';

let t: TestEnv;
let stack: TestGateway;

beforeAll(async () => {
  t = await createTestEnv('pixellimits');
  stack = await startGateway(t);
});

afterAll(async () => {
  await stack?.close();
  await t?.close();
});

describe('POST /pixel/collect rate limits (shared counters)', () => {
  const clock = new ManualClock(new Date('2030-01-01T00:00:20Z'));
  const window = new Date('2030-01-01T00:00:00Z');
  // Two gateways on one database stand for two gateway processes.
  let a: TestGateway;
  let b: TestGateway;
  beforeAll(async () => {
    a = await startGateway(t, { clock });
    b = await startGateway(t, { clock });
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
    // The key's 429 comes after the key and origin passed: it carries the CORS header.
    expect(res.headers.get('access-control-allow-origin')).toBe('https://shop.example.com');
  });

  const counts = async (...buckets: string[]) => {
    const { rows } = await t.pool.query<{ bucket: string; count: number }>(
      `select bucket, count from control.rate_counters where window_start = $1 and bucket = any($2)`,
      [window, buckets],
    );
    return Object.fromEntries(rows.map((r) => [r.bucket, r.count]));
  };

  it('given an IP over its 600, when it posts with a valid key, then 429 without CORS headers and the key is not counted', async () => {
    const k = await pixelKey(t);
    const ip = '203.0.113.101';
    await seed(`pixel:ip:${ip}`, 600);
    const res = await collect(a.url, { key: k.key, events: [pixelEvent()] }, { ip });
    expect(res.status).toBe(429);
    expect(res.headers.get('retry-after')).toBe('40');
    expect(res.headers.get('access-control-allow-origin')).toBeNull();
    expect(await counts(`pixel:ip:${ip}`, `pixel:key:${k.keyId}`)).toEqual({ [`pixel:ip:${ip}`]: 601 });
  });

  it('given an IP at 599, when it sends a refused request (403) and then a valid one, then the refused one counted: 403, then 429', async () => {
    const k = await pixelKey(t);
    const ip = '203.0.113.102';
    await seed(`pixel:ip:${ip}`, 599);
    const bad = await collect(a.url, { key: 'pk_unknown', events: [pixelEvent()] }, { ip });
    expect(bad.status).toBe(403);
    const next = await collect(b.url, { key: k.key, events: [pixelEvent()] }, { ip });
    expect(next.status).toBe(429);
    // And once over, whatever it sends is a 429 (a 422 body, a 403 key alike).
    expect((await collect(a.url, { key: k.key, events: [] }, { ip })).status).toBe(429);
    expect((await collect(a.url, { key: 'pk_unknown', events: [pixelEvent()] }, { ip })).status).toBe(429);
  });

  it('given 40 concurrent requests of one key from 40 IPs over two gateways, when they are counted in one statement each, then both counters are exact', async () => {
    const k = await pixelKey(t);
    const ips = Array.from({ length: 40 }, (_, i) => `198.51.100.${i + 1}`);
    const answers = await Promise.all(
      ips.map((ip, i) => collect(i % 2 ? a.url : b.url, { key: k.key, events: [pixelEvent()] }, { ip })),
    );
    expect(answers.map((r) => r.status)).toEqual(ips.map(() => 204));
    const c = await counts(`pixel:key:${k.keyId}`, ...ips.map((ip) => `pixel:ip:${ip}`));
    expect(c[`pixel:key:${k.keyId}`]).toBe(40);
    for (const ip of ips) expect(c[`pixel:ip:${ip}`]).toBe(1);
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
