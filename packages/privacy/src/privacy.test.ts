import { randomBytes } from 'node:crypto';
import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { blindIndex, recordSubject, subjectOf } from './blind-index.js';
import { openFields, personalAad, PersonalDataUnreadableError, sealFields } from './envelope.js';
import { SubjectKeyCache } from './subject-key-cache.js';
import type { SubjectKeyStore } from './subject-key-store.js';

const k1 = randomBytes(32);
const k2 = randomBytes(32);

describe('blindIndex', () => {
  it('given the same key, kind and value, then the index is the same 22 base64url characters', () => {
    const a = blindIndex(k1, 'email', 'ada@example.com');
    expect(a).toMatch(/^[A-Za-z0-9_-]{22}$/);
    expect(blindIndex(Buffer.from(k1), 'email', 'ada@example.com')).toBe(a);
  });

  it('given another account key, kind or value, then the index differs', () => {
    const a = blindIndex(k1, 'email', 'ada@example.com');
    expect(blindIndex(k2, 'email', 'ada@example.com')).not.toBe(a);
    expect(blindIndex(k1, 'external_id', 'ada@example.com')).not.toBe(a);
    expect(blindIndex(k1, 'email', 'bob@example.com')).not.toBe(a);
  });

  it('given a known key and value, then it is the HMAC-SHA256 of kind NUL value', async () => {
    const { createHmac } = await import('node:crypto');
    const expected = createHmac('sha256', k1).update('phone\0+14155550100').digest('base64url');
    expect(blindIndex(k1, 'phone', '+14155550100')).toBe(expected.slice(0, 22));
  });
});

describe('subjectOf', () => {
  it('prefers the external id, then the email, then the phone', () => {
    expect(subjectOf({ externalId: 'X', email: 'E', phone: 'P' })).toBe('x:X');
    expect(subjectOf({ externalId: null, email: 'E', phone: 'P' })).toBe('e:E');
    expect(subjectOf({ phone: 'P' })).toBe('p:P');
  });

  it('given no identifier, then null (the record is its own subject)', () => {
    expect(subjectOf({ externalId: null, email: null, phone: null })).toBeNull();
    expect(recordSubject('ev1')).toBe('r:ev1');
  });
});

describe('sealFields / openFields', () => {
  const aad = personalAad('acc', 'e:abc', 'ev1');
  const layout = ['email', 'name', 'city'];
  const fields = ['ada@example.com', 'Ada Lovelace', null];

  it('given the same key and aad, then the values round-trip in a version-2 envelope', () => {
    const sealed = sealFields(k1, aad, fields);
    expect(sealed[0]).toBe(2);
    expect(sealed.includes(Buffer.from('ada@example.com'))).toBe(false);
    expect(openFields(k1, aad, sealed, layout)).toEqual(fields);
  });

  it('given another aad (the ciphertext moved to another record), then it does not open', () => {
    const sealed = sealFields(k1, aad, fields);
    expect(() => openFields(k1, personalAad('acc', 'e:abc', 'ev2'), sealed, layout)).toThrow(
      PersonalDataUnreadableError,
    );
  });

  it('given another key, then it does not open', () => {
    expect(() => openFields(k2, aad, sealFields(k1, aad, fields), layout)).toThrow(
      PersonalDataUnreadableError,
    );
  });

  it('given any byte tampered, the version byte set to 1 included, then it does not open', () => {
    const sealed = sealFields(k1, aad, fields);
    for (const at of [0, 5, 20, sealed.length - 1]) {
      const t = Buffer.from(sealed);
      t[at]! ^= 1;
      expect(() => openFields(k1, aad, t, layout)).toThrow(PersonalDataUnreadableError);
    }
    const v1 = Buffer.from(sealed);
    v1[0] = 1; // outside the tag: refused by the shape (an array is not a version-1 object)
    expect(() => openFields(k1, aad, v1, layout)).toThrow(PersonalDataUnreadableError);
    expect(() => openFields(k1, aad, sealed.subarray(0, 10), layout)).toThrow(PersonalDataUnreadableError);
  });

  it('given ivs drawn by the caller, then each seal uses its own and opens; an iv not of 12 bytes is refused', () => {
    const ivs = randomBytes(24);
    const a = sealFields(k1, aad, ['a@example.com'], ivs.subarray(0, 12));
    const b = sealFields(k1, aad, ['a@example.com'], ivs.subarray(12, 24));
    expect(a.subarray(1, 13)).toEqual(ivs.subarray(0, 12));
    expect(b.subarray(1, 13)).toEqual(ivs.subarray(12, 24));
    expect(openFields(k1, aad, b, ['email'])).toEqual(['a@example.com']);
    expect(() => sealFields(k1, aad, [], randomBytes(8))).toThrow('12 bytes');
  });

  it('given any values and ids (property), then sealed they open to the same values, and not under another event', () => {
    fc.assert(
      fc.property(
        fc.array(fc.oneof(fc.constant(null), fc.string(), fc.dictionary(fc.string(), fc.string())), {
          maxLength: 8,
        }),
        fc.string({ minLength: 1 }),
        fc.string({ minLength: 1 }),
        fc.string({ minLength: 1, maxLength: 600 }),
        (values, account, subject, eventId) => {
          const recordAad = personalAad(account, subject, eventId);
          const sealed = sealFields(k1, recordAad, values);
          const names = values.map((_, i) => `f${i}`);
          expect(openFields(k1, recordAad, sealed, names)).toEqual(values);
          expect(() => openFields(k1, personalAad(account, subject, `${eventId}x`), sealed, names)).toThrow(
            PersonalDataUnreadableError,
          );
        },
      ),
      { numRuns: 300 },
    );
  });

  // Version-1 envelopes (a JSON object with names) as `sealFields` wrote them before version 2
  // (commit eb7efee, key 32 x 0x07, iv 12 x 0x09): records already in the log must still open.
  const oldKey = Buffer.alloc(32, 7);
  const v1Order =
    'AQkJCQkJCQkJCQkJCcq9dlHLzsmnO+b8vdRfLy1cp+H535mtQ5pAqlyHqsantd0Tn1HAlK8CjGqEpRxuFLbH3eHJYx4hSoaQI3QF0+ReeLz3Z+faIQgKc8g4dxfrTkWqT+1HzO+3lqwY3orh1zHLuH7Cd7TUE9gJ5TbzdEA5U5j8pznkZwDttXsAjjxnwmBqJ+7hr5wy8OWEOGos2qLrdwIH2j2QLzu2pAjHfIBT5kBStQb2MQ==';
  const v1Customer =
    'AQkJCQkJCQkJCQkJCYFxVGHPqT6MuVWIvIY7ovNcp+H535mtQ5oMvlSKxoGvvN8NlhbU1etemneT4EE0SuLV1+HOcERxEtaHLGZ1h7VcGPHid/jPLQBNLbU3ch78CQz7LLNdzs+xjqxFndOmxD2kqn/FJ5fJX5N05TbzdEA5U5j8pznkZwDttWsHkiJj2XcvQr/SjMoqrw==';
  const v1Pixel =
    'AQkJCQkJCQkJCQkJCQsddgsByVvFFovJGy3b8iJcp/b1ya+xE88SuGeMmcyx9opBiGjMnJxNlBqEoygjB/HJxbCHM1hzF5GfNCVQgvZQdu71dfHxOgwbbfJ0LBT7ABP1';

  it('given a version-1 envelope written before, then it opens into the layout order, names it lacks null', () => {
    expect(
      openFields(oldKey, personalAad('acc-1', 'e:abc', 'ev-1'), Buffer.from(v1Order, 'base64'), [
        'email',
        'phone',
        'customer_name',
        'shipping_city',
        'shipping_state',
        'shipping_zip',
        'added_later',
      ]),
    ).toEqual(['ada@example.com', '+14155550100', 'Ada Lovelace', 'London', null, 'N1 9GU', null]);
    expect(
      openFields(oldKey, personalAad('acc-1', 'x:cus', 'ev-2'), Buffer.from(v1Customer, 'base64'), [
        'email',
        'phone',
        'name',
        'address',
      ]),
    ).toEqual([null, '+14155550100', 'Ada Lovelace', { line1: '1 Main St', city: 'London', country: 'GB' }]);
    expect(
      openFields(oldKey, personalAad('acc-1', 'a:brw', 'ev-3'), Buffer.from(v1Pixel, 'base64'), [
        'raw_props_json',
        'search',
        'page_title',
      ]),
    ).toEqual(['{"k":"v"}', 'ada', null]);
  });

  it('given a version-1 envelope under another aad or with its version byte set to 2, then it does not open', () => {
    const sealed = Buffer.from(v1Order, 'base64');
    expect(() => openFields(oldKey, personalAad('acc-1', 'e:abc', 'ev-9'), sealed, ['email'])).toThrow(
      PersonalDataUnreadableError,
    );
    const v2 = Buffer.from(sealed);
    v2[0] = 2;
    expect(() => openFields(oldKey, personalAad('acc-1', 'e:abc', 'ev-1'), v2, ['email'])).toThrow(
      PersonalDataUnreadableError,
    );
  });
});

function fakeStore(): SubjectKeyStore & { generation: bigint; keys: Map<string, Buffer>; calls: string[][] } {
  const s = {
    generation: 0n,
    keys: new Map<string, Buffer>(),
    calls: [] as string[][],
    indexKey: () => Promise.resolve(k1),
    dataKeys(_a: string, ids: readonly string[], opts: { create: boolean }) {
      s.calls.push([...ids]);
      const out = new Map<string, Buffer>();
      for (const id of ids) {
        if (!s.keys.has(id) && opts.create) s.keys.set(id, randomBytes(32));
        if (s.keys.has(id)) out.set(id, s.keys.get(id)!);
      }
      return Promise.resolve(out);
    },
    destroy(_a: string, ids: readonly string[]) {
      let n = 0;
      for (const id of ids) if (s.keys.delete(id)) n++;
      s.generation++;
      return Promise.resolve(n);
    },
    keyGeneration: () => Promise.resolve(s.generation),
  };
  return s;
}

describe('SubjectKeyCache', () => {
  it('given cached keys, then only the misses go to the store, in one call', async () => {
    const store = fakeStore();
    const cache = new SubjectKeyCache(store);
    await cache.refresh();
    await cache.dataKeys('a', ['s1', 's2'], { create: true });
    const keys = await cache.dataKeys('a', ['s1', 's2', 's3', 's3'], { create: true });
    expect([...keys.keys()].sort()).toEqual(['s1', 's2', 's3']);
    expect(store.calls).toEqual([['s1', 's2'], ['s3']]);
  });

  it('given a destruction, then after refresh the destroyed key is no longer served', async () => {
    const store = fakeStore();
    const cache = new SubjectKeyCache(store);
    await cache.refresh();
    await cache.dataKeys('a', ['s1', 's2'], { create: true });
    await store.destroy('a', ['s1'], 'e');
    await cache.refresh();
    const keys = await cache.dataKeys('a', ['s1', 's2'], { create: false });
    expect([...keys.keys()]).toEqual(['s2']);
  });

  it('given a store reading keys with the generation, then refreshFor takes one call per account and never serves a destroyed key', async () => {
    const store = fakeStore();
    const reads: string[][] = [];
    const withGeneration = Object.assign(store, {
      dataKeysAndGeneration(_a: string, ids: readonly string[]) {
        reads.push([...ids]);
        const keys = new Map([...store.keys].filter(([id]) => ids.includes(id)));
        return Promise.resolve({ generation: store.generation, keys });
      },
    });
    await store.dataKeys('a', ['s1', 's2'], { create: true });
    store.calls.length = 0;
    const cache = new SubjectKeyCache(withGeneration);
    await cache.refreshFor(new Map([['a', ['s1', 's2']]]));
    expect(reads).toEqual([['s1', 's2']]);
    expect([...(await cache.dataKeys('a', ['s1', 's2'], { create: false })).keys()]).toEqual(['s1', 's2']);
    expect(store.calls).toEqual([]); // served from what refreshFor read
    await cache.refreshFor(new Map([['a', ['s1', 's2']]]));
    expect(reads[1]).toEqual([]); // cached: the generation alone
    await store.destroy('a', ['s1'], 'e');
    await cache.refreshFor(new Map([['a', ['s2']]]));
    expect([...(await cache.dataKeys('a', ['s1', 's2'], { create: false })).keys()]).toEqual(['s2']);
  });

  it('given more keys than its bound, then it evicts the least recently used', async () => {
    const store = fakeStore();
    const cache = new SubjectKeyCache(store, { maxDataKeys: 4 });
    await cache.dataKeys('a', ['s1', 's2'], { create: true });
    await cache.dataKeys('a', ['s1'], { create: true }); // s1 is now the most recent
    await cache.dataKeys('a', ['s3'], { create: true });
    expect(cache.size).toBeLessThanOrEqual(4);
    store.calls.length = 0;
    await cache.dataKeys('a', ['s1', 's2'], { create: true });
    expect(store.calls).toEqual([['s2']]);
  });

  it('given many subjects of several accounts, then at most maxDataKeys are held, and the same id of another account is another key', async () => {
    const store = fakeStore();
    const cache = new SubjectKeyCache(store, { maxDataKeys: 10 });
    for (let i = 0; i < 100; i++) {
      await cache.dataKeys(i % 2 ? 'a' : 'b', [`s${i}`], { create: true });
      expect(cache.size).toBeLessThanOrEqual(10);
    }
    const recent = await cache.dataKeys('a', ['s99'], { create: true });
    store.calls.length = 0;
    expect(cache.peekDataKey('a', 's99')).toBe(recent.get('s99'));
    expect(cache.peekDataKey('b', 's99')).toBeUndefined();
    expect(cache.peekDataKey('a', 's1')).toBeUndefined();
  });

  it('given an identifier indexed twice, then it is the blind index, remembered once; a destruction forgets every one', async () => {
    const store = fakeStore();
    const cache = new SubjectKeyCache(store);
    await cache.refresh();
    const a = cache.blindIndex('a', k1, 'email', 'ada@example.com');
    expect(a).toBe(blindIndex(k1, 'email', 'ada@example.com'));
    expect(cache.blindIndex('a', k1, 'email', 'ada@example.com')).toBe(a);
    expect(cache.blindIndex('b', k2, 'email', 'ada@example.com')).toBe(
      blindIndex(k2, 'email', 'ada@example.com'),
    );
    expect(cache.indexesRemembered).toBe(2);
    await store.destroy('a', ['s1'], 'e');
    await cache.refresh();
    expect(cache.indexesRemembered).toBe(0);
  });

  it('given more identifiers than its bound, then it starts afresh rather than grow', () => {
    const cache = new SubjectKeyCache(fakeStore(), { maxIndexes: 2 });
    for (const v of ['1', '2', '3']) cache.blindIndex('a', k1, 'phone', v);
    expect(cache.indexesRemembered).toBe(1);
  });
});
