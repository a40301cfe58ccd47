// The read route's one-round-trip limits (Limiter.readUnlessBlocked): the failed-authentication peek
// and the read count in one statement must answer exactly as failedAuthBlocked then read did.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { mintApiKey } from '@holdfast/control-plane';
import { RateLimitedError } from '@holdfast/platform';
import { createTestEnv, type TestEnv } from '@holdfast/testing';
import { FAILED_AUTH_SHARDS, Limiter } from '../../src/limits/limiter.js';
import { LIMITS, MINUTE_MS } from '../../src/limits/policy.js';
import { RateCounter, shardBuckets } from '../../src/limits/rate-counter.js';
import { call, newAccount, startGateway, type TestGateway } from '@holdfast/testing/services';

let t: TestEnv;
let gw: TestGateway;

beforeAll(async () => {
  t = await createTestEnv('gw-read-unless-blocked');
  gw = await startGateway(t);
});

afterAll(async () => {
  await gw?.close();
  await t?.close();
});

/** A minute that has just begun, so the hits stay inside one fixed window. */
const windowStart = () => new Date(Math.floor(Date.now() / MINUTE_MS) * MINUTE_MS + 1_000);

async function count(bucket: string): Promise<number> {
  const { rows } = await t.pool.query<{ n: number }>(
    `select coalesce(sum(count), 0)::int as n from control.rate_counters where bucket = $1`,
    [bucket],
  );
  return rows[0]!.n;
}

/** `n` failures of `ip` this window, spread over the shards as hitSharded would. */
async function fail(ip: string, n: number, now: Date): Promise<void> {
  const start = new Date(Math.floor(now.getTime() / MINUTE_MS) * MINUTE_MS);
  for (const [i, bucket] of shardBuckets(`authfail:${ip}`, FAILED_AUTH_SHARDS).entries())
    await t.pool.query(
      `insert into control.rate_counters (bucket, window_start, count) values ($1, $2, $3)`,
      [bucket, start, Math.floor(n / FAILED_AUTH_SHARDS) + (i < n % FAILED_AUTH_SHARDS ? 1 : 0)],
    );
}

describe('Limiter.readUnlessBlocked', () => {
  it('given an IP within its failed-authentication limit, when a read is counted, then the key’s read count grows by one per call', async () => {
    const limiter = new Limiter(new RateCounter(t.pool));
    const now = windowStart();
    await fail('192.0.2.10', LIMITS.failedAuthPerMinute, now); // 30: still allowed
    await limiter.readUnlessBlocked('192.0.2.10', 'k-within', now);
    await limiter.readUnlessBlocked('192.0.2.10', 'k-within', now);
    expect(await count('read:k-within')).toBe(2);
  });

  it('given an IP past 30 failures this minute, when a read is counted, then the 429 and the read is not counted', async () => {
    const limiter = new Limiter(new RateCounter(t.pool));
    const now = windowStart();
    await fail('192.0.2.11', LIMITS.failedAuthPerMinute + 1, now);
    await expect(limiter.readUnlessBlocked('192.0.2.11', 'k-blocked', now)).rejects.toBeInstanceOf(
      RateLimitedError,
    );
    expect(await count('read:k-blocked')).toBe(0);
  });

  it('given a key at 1,200 reads this minute, when one more is counted, then the 429 (the read budget, counted)', async () => {
    const limiter = new Limiter(new RateCounter(t.pool));
    const now = windowStart();
    const start = new Date(Math.floor(now.getTime() / MINUTE_MS) * MINUTE_MS);
    await t.pool.query(
      `insert into control.rate_counters (bucket, window_start, count) values ($1, $2, $3)`,
      ['read:k-full', start, LIMITS.readRequestsPerMinute],
    );
    await expect(limiter.readUnlessBlocked('192.0.2.12', 'k-full', now)).rejects.toBeInstanceOf(
      RateLimitedError,
    );
    expect(await count('read:k-full')).toBe(LIMITS.readRequestsPerMinute + 1);
  });
});

describe('a read with a key the credential cache holds', () => {
  it('given a read key already cached and its IP then past 30 failures, when it reads, then the failed-auth 429 (checked first), the read not counted; another IP reads', async () => {
    const acc = await newAccount(t);
    const readKey = await mintApiKey(t.db, acc.accountId, 'read_live');
    const ip = '198.51.100.91';
    const first = await call(gw.url, 'GET', '/v1/lift', { key: readKey.key, ip }); // caches the key
    expect(first.status).toBe(200);
    expect(first.headers.get('ratelimit')).toMatch(/^"read";r=1199;t=\d+$/);
    for (let i = 0; i <= LIMITS.failedAuthPerMinute; i++)
      await call(gw.url, 'GET', '/v1/lift', { key: 'rk_live_wrong', ip });
    const blocked = await call(gw.url, 'GET', '/v1/lift', { key: readKey.key, ip });
    expect(blocked.status).toBe(429);
    expect(Number(blocked.headers.get('retry-after'))).toBeGreaterThan(0);
    expect(blocked.headers.get('ratelimit-policy')).toBe('"failed-auth";q=30;w=60');
    expect(await count(`read:${readKey.id}`)).toBe(1);
    const other = await call(gw.url, 'GET', '/v1/lift', { key: readKey.key, ip: '198.51.100.92' });
    expect(other.status).toBe(200);
    expect(other.headers.get('ratelimit')).toMatch(/^"read";r=1198;t=\d+$/);
  });
});
