import { describe, expect, it } from 'vitest';
import {
  CredentialStore,
  NotCachedError,
  type ApiKeyRecord,
  type CredentialSource,
} from '../../src/auth/credential-store.js';

const record: ApiKeyRecord = {
  id: 'key-1',
  accountId: 'acc',
  kind: 'read_live',
  revokedAt: null,
  expiresAt: null,
  readWithIngestKey: false,
};
const hash = Buffer.from('00000001', 'hex');

/** A source holding `record` that counts its reads. */
function source() {
  const reads: string[] = [];
  const s: CredentialSource = {
    apiKey(h) {
      reads.push(h.toString('hex'));
      return Promise.resolve(h.equals(hash) ? record : null);
    },
    customIntegrationTile() {
      return Promise.resolve(null);
    },
  };
  return { reads, s };
}

describe('CredentialStore.cacheOnly: the credential cache without a database read', () => {
  it('given a key the store has cached, when the cache-only view asks, then the cached record without reading the source', async () => {
    const { reads, s } = source();
    const store = new CredentialStore(s, 60_000);
    store.setTrusted(true);
    await store.apiKey(hash);
    await expect(store.cacheOnly().apiKey(hash)).resolves.toEqual(record);
    expect(reads).toHaveLength(1);
  });

  it('given a key never looked up, when the cache-only view asks, then NotCachedError, no source read and no cache fill', async () => {
    const { reads, s } = source();
    const store = new CredentialStore(s, 60_000);
    store.setTrusted(true);
    await expect(store.cacheOnly().apiKey(hash)).rejects.toBeInstanceOf(NotCachedError);
    await expect(store.cacheOnly().customIntegrationTile('acc')).rejects.toBeInstanceOf(NotCachedError);
    expect(reads).toHaveLength(0);
    expect(store.size).toBe(0);
  });

  it('given a cached key, when the invalidation channel goes down (untrusted) or the entry expires, then the cache-only view does not answer', async () => {
    const { s } = source();
    const untrusted = new CredentialStore(s, 60_000);
    untrusted.setTrusted(true);
    await untrusted.apiKey(hash);
    untrusted.setTrusted(false);
    await expect(untrusted.cacheOnly().apiKey(hash)).rejects.toBeInstanceOf(NotCachedError);

    const expiring = new CredentialStore(s, 1);
    expiring.setTrusted(true);
    await expiring.apiKey(hash);
    await new Promise((r) => setTimeout(r, 5));
    await expect(expiring.cacheOnly().apiKey(hash)).rejects.toBeInstanceOf(NotCachedError);
  });
});
