// The failed-authentication limit: checked before any key lookup, counted on a sharded counter (no
// hot row per IP), exact across gateway processes (shared in PostgreSQL).
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createPool, type Pool } from '@holdfast/postgres';
import { RateLimitedError } from '@holdfast/platform';
import { createTestEnv, type TestEnv } from '@holdfast/testing';
import {
  call,
  newAccount,
  startGateway,
  type AccountFixture,
  type TestGateway,
} from '@holdfast/testing/services';
import { FAILED_AUTH_SHARDS, Limiter } from '../../src/limits/limiter.js';
import { LIMITS, MINUTE_MS } from '../../src/limits/policy.js';
import { RateCounter } from '../../src/limits/rate-counter.js';

let t: TestEnv;
let gw: TestGateway;
let acc: AccountFixture;
let poolA: Pool;
let poolB: Pool;

beforeAll(async () => {
  t = await createTestEnv('gw-failed-auth');
  gw = await startGateway(t);
  acc = await newAccount(t);
  poolA = createPool(t.databaseUrl, 'gateway-a', 16);
  poolB = createPool(t.databaseUrl, 'gateway-b', 16);
});

afterAll(async () => {
  await poolA?.end();
  await poolB?.end();
  await gw?.close();
  await t?.close();
});

/** A minute that has just begun, so a burst stays inside one fixed window. */
const windowStart = (offsetMs = 1_000) => new Date(Math.floor(Date.now() / MINUTE_MS) * MINUTE_MS + offsetMs);

describe('failed-authentication limit', () => {
  it('given an IP past 30 failures this minute, when it sends a VALID key, then 429 + Retry-After before any key lookup; another IP with the same key is served', async () => {
    const ip = '198.51.100.77';
    for (let i = 0; i < LIMITS.failedAuthPerMinute; i++) {
      const r = await call(gw.url, 'GET', '/ingest/health', { key: 'sk_live_wrong', ip });
      expect(r.status).toBe(401);
    }
    expect((await call(gw.url, 'GET', '/ingest/health', { key: 'sk_live_wrong', ip })).status).toBe(429);
    const valid = await call(gw.url, 'GET', '/ingest/health', { key: acc.key, ip });
    expect(valid.status).toBe(429);
    expect(Number(valid.headers.get('retry-after'))).toBeGreaterThan(0);
    expect(valid.headers.get('ratelimit-policy')).toBe('"failed-auth";q=30;w=60');
    expect((await call(gw.url, 'GET', '/ingest/health', { key: acc.key, ip: '198.51.100.78' })).status).toBe(
      200,
    );
  });

  it('given two gateway processes (two pools), when 200 failures of one IP arrive concurrently on both, then the shared count is exact and the pre-check refuses', async () => {
    const now = windowStart();
    const a = new Limiter(new RateCounter(poolA));
    const b = new Limiter(new RateCounter(poolB));
    const ip = '203.0.113.200';
    expect(await a.failedAuthBlocked(ip, now)).toBeNull();
    const outcomes = await Promise.all(
      Array.from({ length: 200 }, (_, i) => (i % 2 ? a : b).failedAuth(ip, now)),
    );
    const { rows } = await t.pool.query<{ n: number; rows: number }>(
      `select sum(count)::int as n, count(*)::int as rows from control.rate_counters where bucket like $1`,
      [`authfail:${ip}#%`],
    );
    expect(rows[0]!.n).toBe(200);
    expect(rows[0]!.rows).toBeLessThanOrEqual(FAILED_AUTH_SHARDS);
    // At least the 31st onwards is refused (an answer may miss hits committed meanwhile: never more refusals).
    expect(outcomes.filter((o) => o instanceof RateLimitedError).length).toBeGreaterThanOrEqual(
      200 - 30 - FAILED_AUTH_SHARDS * 16,
    );
    expect(await a.failedAuthBlocked(ip, now)).toBeInstanceOf(RateLimitedError);
    expect(await b.failedAuthBlocked('203.0.113.201', now)).toBeNull();
  });

  it('measures N concurrent failed authentications of one IP: one hot row vs the sharded counter', async () => {
    const n = 400;
    const counter = new RateCounter(poolA);
    const hot = '192.0.2.1';
    const sharded = '192.0.2.2';
    const measure = async (hit: (i: number) => Promise<unknown>) => {
      const started = performance.now();
      await Promise.all(Array.from({ length: n }, (_, i) => hit(i)));
      return Math.round(performance.now() - started);
    };
    const now = windowStart();
    const rounds: { hot: number; sharded: number; overLimitPeek: number }[] = [];
    for (let r = 0; r < 3; r++) {
      rounds.push({
        hot: await measure(() => counter.hit(`authfail:${hot}:${r}`, MINUTE_MS, now)),
        sharded: await measure(() =>
          counter.hitSharded(`authfail:${sharded}:${r}`, FAILED_AUTH_SHARDS, MINUTE_MS, now),
        ),
        // An IP already over its limit: before, each of its requests was one more upsert of its row;
        // now it is answered after one read (`failedAuthBlocked`), nothing written or locked.
        overLimitPeek: await measure(() =>
          counter.peekSharded(`authfail:${sharded}:${r}`, FAILED_AUTH_SHARDS, MINUTE_MS, now),
        ),
      });
    }
    console.log(
      `failed-auth counter, ${n} concurrent hits of one IP, pool 16, ms per round:`,
      JSON.stringify(rounds),
    );
    const { rows } = await t.pool.query<{ n: number }>(
      `select sum(count)::int as n from control.rate_counters where bucket like $1`,
      [`authfail:${sharded}:0#%`],
    );
    expect(rows[0]!.n).toBe(n);
  });
});
