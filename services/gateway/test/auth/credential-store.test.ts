import { describe, expect, it } from 'vitest';
import {
  CredentialStore,
  type ApiKeyRecord,
  type CredentialSource,
} from '../../src/auth/credential-store.js';

/** A source that counts its reads and answers from a mutable table. */
function countingSource() {
  const rows = new Map<string, ApiKeyRecord>();
  const reads: string[] = [];
  const source: CredentialSource = {
    apiKey(hash) {
      const k = hash.toString('hex');
      reads.push(k);
      return Promise.resolve(rows.get(k) ?? null);
    },
    customIntegrationTile() {
      return Promise.resolve(null);
    },
  };
  return { rows, reads, source };
}

const hash = (n: number) => Buffer.from(n.toString(16).padStart(8, '0'), 'hex');
const key = (n: number, revokedAt: Date | null = null): ApiKeyRecord => ({
  id: `key-${n}`,
  accountId: 'acc',
  kind: 'ingest_live',
  revokedAt,
  expiresAt: null,
  readWithIngestKey: false,
});

describe('CredentialStore: a bounded LRU cache with immediate invalidation', () => {
  it('given a full cache, when a new key is looked up, then only the least recently used entry is evicted (the hot key stays cached)', async () => {
    const { rows, reads, source } = countingSource();
    const store = new CredentialStore(source, 60_000, 3);
    store.setTrusted(true);
    rows.set(hash(1).toString('hex'), key(1));
    await store.apiKey(hash(1)); // the live key
    await store.apiKey(hash(2));
    await store.apiKey(hash(3));
    await store.apiKey(hash(1)); // touched: now most recent
    await store.apiKey(hash(4)); // evicts 2, the least recently used
    expect(store.size).toBe(3);
    reads.length = 0;
    await store.apiKey(hash(1));
    await store.apiKey(hash(3));
    await store.apiKey(hash(4));
    expect(reads).toEqual([]);
    await store.apiKey(hash(2));
    expect(reads).toEqual([hash(2).toString('hex')]);
  });

  it('given a flood of unknown keys far beyond the bound, when it passes, then the cache never holds more than the bound and a key used between them stays cached', async () => {
    const { rows, reads, source } = countingSource();
    const store = new CredentialStore(source, 60_000, 100);
    store.setTrusted(true);
    rows.set(hash(0).toString('hex'), key(0));
    for (let i = 1; i <= 1_000; i++) {
      await store.apiKey(hash(1_000_000 + i));
      if (i % 10 === 0) await store.apiKey(hash(0));
      expect(store.size).toBeLessThanOrEqual(100);
    }
    expect(reads.filter((r) => r === hash(0).toString('hex'))).toHaveLength(1);
  });

  it('given a cached key, when it is revoked and the invalidation arrives, then the next lookup reads the revocation', async () => {
    const { rows, source } = countingSource();
    const store = new CredentialStore(source, 60_000, 10);
    store.setTrusted(true);
    rows.set(hash(7).toString('hex'), key(7));
    expect((await store.apiKey(hash(7)))?.revokedAt).toBeNull();
    const revokedAt = new Date('2026-01-01T00:00:00Z');
    rows.set(hash(7).toString('hex'), key(7, revokedAt));
    expect((await store.apiKey(hash(7)))?.revokedAt).toBeNull(); // still cached: no notification yet
    store.invalidate();
    expect((await store.apiKey(hash(7)))?.revokedAt).toEqual(revokedAt);
    expect(store.size).toBe(1);
  });

  it('given the invalidation channel is down, when a key is looked up twice, then both lookups read the source', async () => {
    const { reads, source } = countingSource();
    const store = new CredentialStore(source, 60_000, 10);
    await store.apiKey(hash(5));
    await store.apiKey(hash(5));
    expect(reads).toHaveLength(2);
    expect(store.size).toBe(0);
  });
});
