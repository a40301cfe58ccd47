// The revocation LISTEN connection on the real PostgreSQL, behind a TcpProxy: when the connection dies
// silently (the proxy stops carrying bytes, no reset), a revoked key is refused within seconds, not
// after the 30 s of the credential cache.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createPool, type Pool } from '@holdfast/postgres';
import { hashToken, revokeApiKey } from '@holdfast/control-plane';
import { createTestEnv, TcpProxy, type TestEnv } from '@holdfast/testing';
import { newAccount } from '@holdfast/testing/services';
import { CredentialListener } from '../../src/auth/credential-listener.js';
import { CredentialStore, dbCredentialSource } from '../../src/auth/credential-store.js';

const CACHE_MS = 30_000;
const PING_MS = 500;

let t: TestEnv;
let proxy: TcpProxy;
let listenerPool: Pool;
const events: string[] = [];
const logger = {
  debug: () => {},
  info: (e: string) => void events.push(e),
  warn: (e: string) => void events.push(e),
  error: () => {},
  child: () => logger,
};

beforeAll(async () => {
  t = await createTestEnv('gw-listener');
  const url = new URL(t.databaseUrl);
  proxy = await TcpProxy.start(url.hostname, Number(url.port || 5432));
  url.hostname = '127.0.0.1';
  url.port = String(proxy.port);
  // Only the LISTEN connection goes through the proxy: lookups still reach the database.
  listenerPool = createPool(url.toString(), 'listener-under-test', 2, { connectTimeoutMs: 2_000 });
});
afterAll(async () => {
  proxy?.forward();
  await listenerPool?.end();
  await proxy?.close();
  await t?.close();
});

/** Polls `check` every 50 ms until it is true; the elapsed ms, or throws after `withinMs`. */
async function msUntil(check: () => Promise<boolean>, withinMs: number): Promise<number> {
  const started = Date.now();
  while (Date.now() - started < withinMs) {
    if (await check()) return Date.now() - started;
    await new Promise((r) => setTimeout(r, 50));
  }
  throw new Error(`not within ${withinMs} ms`);
}

describe('the credential LISTEN connection', () => {
  it('given the connection blackholed, when a cached key is revoked, then it is refused within a few seconds, and the listener comes back with the cache re-read', async () => {
    // Minted first: their notifications would otherwise drop the cache after the lookups below.
    const a = await newAccount(t);
    const b = await newAccount(t);
    const store = new CredentialStore(dbCredentialSource(t.pool), CACHE_MS);
    const listener = new CredentialListener(listenerPool, store, logger, PING_MS);
    await listener.start();
    try {
      const active = async (key: string) => (await store.apiKey(hashToken(key)))?.revokedAt === null;
      expect(await active(a.key)).toBe(true); // cached for 30 s from here
      expect(await active(b.key)).toBe(true);

      proxy.blackhole();
      await revokeApiKey(t.db, a.keyId); // its notification is lost in the proxy
      const refusedAfter = await msUntil(async () => !(await active(a.key)), 10_000);
      // At most a ping interval plus its deadline (2 × 500 ms), with slack for a busy machine.
      expect(refusedAfter).toBeLessThan(3_000);
      expect(events).toContain('credential_listener_lost');

      proxy.forward();
      await msUntil(() => Promise.resolve(events.includes('credential_listener_reconnected')), 15_000);
      // Listening again: the next revocation is notified and bites at once despite the cache.
      expect(await active(b.key)).toBe(true);
      await revokeApiKey(t.db, b.keyId);
      expect(await msUntil(async () => !(await active(b.key)), 5_000)).toBeLessThan(1_000);
    } finally {
      await listener.close();
    }
  });
});
