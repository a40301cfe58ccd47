import { randomBytes, randomUUID } from 'node:crypto';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { SecretsKeyring } from '@holdfast/secrets';
import { createTestEnv, type TestEnv } from '@holdfast/testing';
import { PgSubjectKeyStore } from './pg-subject-key-store.js';
import { SubjectKeyCache } from './subject-key-cache.js';

let t: TestEnv;
const kek1 = { id: 'k1', key: randomBytes(32) };
const kek2 = { id: 'k2', key: randomBytes(32) };
let store: PgSubjectKeyStore;

beforeAll(async () => {
  t = await createTestEnv('privacy-store');
  store = new PgSubjectKeyStore(t.pool, new SecretsKeyring([kek1], 'HOLDFAST_PRIVACY_KEYS'));
});
afterAll(() => t?.close());

describe('PgSubjectKeyStore', () => {
  it('given an account, then its index key is created once and the same on every call and store', async () => {
    const account = randomUUID();
    const [a, b] = await Promise.all([store.indexKey(account), store.indexKey(account)]);
    expect(a.length).toBe(32);
    expect(b.equals(a)).toBe(true);
    const other = new PgSubjectKeyStore(t.pool, new SecretsKeyring([kek1]));
    expect((await other.indexKey(account)).equals(a)).toBe(true);
    expect((await store.indexKey(randomUUID())).equals(a)).toBe(false);
  });

  it('given concurrent creates of the same subjects, then every caller gets the same keys', async () => {
    const account = randomUUID();
    const subjects = Array.from({ length: 20 }, (_, i) => `e:s${i}`);
    const results = await Promise.all(
      Array.from({ length: 6 }, () => store.dataKeys(account, subjects, { create: true })),
    );
    for (const r of results) {
      expect(r.size).toBe(20);
      for (const s of subjects) expect(r.get(s)!.equals(results[0]!.get(s)!)).toBe(true);
    }
    const read = await store.dataKeys(account, subjects, { create: false });
    expect(read.get('e:s3')!.equals(results[0]!.get('e:s3')!)).toBe(true);
    const { rows } = await t.pool.query(
      'select ciphertext, wrapped_key from privacy.subject_keys where account_id = $1',
      [account],
    );
    expect(rows).toHaveLength(20);
    // Wrapped at rest: no key's bytes appear in any row.
    for (const r of rows as { ciphertext: Buffer; wrapped_key: Buffer }[]) {
      expect(r.wrapped_key).toHaveLength(60);
      for (const key of results[0]!.values()) {
        expect(r.wrapped_key.includes(key)).toBe(false);
        expect(r.ciphertext.includes(key)).toBe(false);
      }
    }
  });

  it('given a destroyed subject, then it is absent without create and a new key is made with create', async () => {
    const account = randomUUID();
    const before = await store.dataKeys(account, ['x:gone', 'x:kept'], { create: true });
    const generation = await store.keyGeneration();
    const erasure = randomUUID();
    expect(await store.destroy(account, ['x:gone', 'x:never'], erasure)).toBe(1);
    expect(await store.keyGeneration()).toBe(generation + 1n);
    const after = await store.dataKeys(account, ['x:gone', 'x:kept'], { create: false });
    expect([...after.keys()]).toEqual(['x:kept']);
    expect(after.get('x:kept')!.equals(before.get('x:kept')!)).toBe(true);
    const { rows } = await t.pool.query<{ subject_id: string; erasure_id: string }>(
      'select subject_id, erasure_id from privacy.erased_subjects where account_id = $1 order by 1',
      [account],
    );
    expect(rows).toEqual([
      { subject_id: 'x:gone', erasure_id: erasure },
      { subject_id: 'x:never', erasure_id: erasure },
    ]);
    // Still absent on every later read without create; read with the generation, in one snapshot.
    expect((await store.dataKeys(account, ['x:gone'], { create: false })).size).toBe(0);
    const both = await store.dataKeysAndGeneration(account, ['x:gone', 'x:kept']);
    expect(both.generation).toBe(generation + 1n);
    expect([...both.keys.keys()]).toEqual(['x:kept']);
    expect(both.keys.get('x:kept')!.equals(before.get('x:kept')!)).toBe(true);
    // A returning person (ingest creates): a NEW key, never the destroyed one.
    const back = await store.dataKeys(account, ['x:gone'], { create: true });
    expect(back.get('x:gone')!.equals(before.get('x:gone')!)).toBe(false);
  });

  it('given a KEK rotation, then rewrap re-seals every key under the new KEK and the keys are unchanged', async () => {
    const account = randomUUID();
    const index = await store.indexKey(account);
    const keys = await store.dataKeys(account, ['e:a', 'e:b', 'e:c'], { create: true });
    const rotated = new PgSubjectKeyStore(t.pool, new SecretsKeyring([kek2, kek1]));
    const moved = await rotated.rewrap(2);
    expect(moved).toBeGreaterThanOrEqual(4);
    const { rows } = await t.pool.query<{ n: number }>(
      `select (select count(*) from privacy.subject_keys where key_id <> 'k2')
            + (select count(*) from privacy.account_keys where key_id <> 'k2') as n`,
    );
    expect(Number(rows[0]!.n)).toBe(0);
    expect(await rotated.rewrap()).toBe(0);
    // The old KEK can go: the ring with k2 only opens everything.
    const only2 = new PgSubjectKeyStore(t.pool, new SecretsKeyring([kek2]));
    expect((await only2.indexKey(account)).equals(index)).toBe(true);
    const again = await only2.dataKeys(account, ['e:a', 'e:b', 'e:c'], { create: false });
    for (const [s, k] of keys) expect(again.get(s)!.equals(k)).toBe(true);
    await expect(store.dataKeys(account, ['e:a'], { create: false })).rejects.toThrow(/no master key "k2"/);
  });

  it('given a store on a transaction that rolls back, then the index key it created is not kept by a cache', async () => {
    const account = randomUUID();
    const client = await t.pool.connect();
    try {
      await client.query('begin');
      const inTx = store.on(client);
      const cache = new SubjectKeyCache(inTx);
      const first = await cache.indexKey(account);
      expect(inTx.isProvisional(account)).toBe(true);
      expect(cache.peekIndexKey(account)).toBeUndefined();
      await client.query('rollback');
      const committed = await store.indexKey(account);
      expect(committed.equals(first)).toBe(false);
      // Read (not created) through a transaction: cached.
      await client.query('begin');
      const again = new SubjectKeyCache(store.on(client));
      expect((await again.indexKey(account)).equals(committed)).toBe(true);
      expect(again.peekIndexKey(account)?.equals(committed)).toBe(true);
      await client.query('commit');
    } finally {
      client.release();
    }
  });
});
