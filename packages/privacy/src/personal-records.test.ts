import { randomBytes } from 'node:crypto';
import { describe, expect, it } from 'vitest';
import type { OrderUpserted } from '@holdfast/contracts';
import { blindIndex } from './blind-index.js';
import { openPersonal, openPersonalCached, sealPersonal } from './personal-records.js';
import { SubjectKeyCache } from './subject-key-cache.js';
import type { SubjectKeyStore } from './subject-key-store.js';

const indexKey = randomBytes(32);

function memoryStore(): SubjectKeyStore & { calls: number } {
  const keys = new Map<string, Buffer>();
  let generation = 0n;
  const s = {
    calls: 0,
    indexKey: () => Promise.resolve(indexKey),
    dataKeys(_a: string, ids: readonly string[], opts: { create: boolean }) {
      s.calls++;
      const out = new Map<string, Buffer>();
      for (const id of ids) {
        if (!keys.has(id) && opts.create) keys.set(id, randomBytes(32));
        if (keys.has(id)) out.set(id, keys.get(id)!);
      }
      return Promise.resolve(out);
    },
    destroy(_a: string, ids: readonly string[]) {
      ids.forEach((id) => keys.delete(id));
      generation++;
      return Promise.resolve(ids.length);
    },
    keyGeneration: () => Promise.resolve(generation),
  };
  return s;
}

const account = '0b7c1f6e-4a8e-4f0a-9d7e-2f8a1c3b5d7e';
const order = (id: string, over: Partial<OrderUpserted['order']> = {}): OrderUpserted => ({
  metadata: {
    account_id: account,
    event_id: `ev-${id}`,
    batch_id: null,
    request_id: null,
    key_id: null,
    received_at: '2025-01-01T00:00:00.000Z',
  },
  order: {
    order_id: id,
    customer_id: null,
    order_date: '2025-01-01T00:00:00.000Z',
    order_amount: 1,
    product_name: 'Tea',
    email: null,
    phone: null,
    customer_name: null,
    source: null,
    order_channel: null,
    currency: 'USD',
    shipping_city: null,
    shipping_state: null,
    shipping_zip: null,
    refunded_amount: null,
    discount_total: null,
    discount_pct: null,
    discount_codes: null,
    cancelled_at: null,
    ...over,
  },
  personal: null,
});
const tagged = (value: OrderUpserted) => ({ type: 'OrderUpserted' as const, value });

describe('sealPersonal / openPersonal', () => {
  it('given a request, then the personal fields are sealed, the clear ones null, with one key round trip', async () => {
    const store = memoryStore();
    const keys = new SubjectKeyCache(store);
    const given = [
      order('1', {
        customer_id: 'c1',
        email: 'ann@example.com',
        customer_name: 'Ann',
        shipping_zip: '10001',
      }),
      order('2', { email: 'bob@example.com', phone: '+14155550100' }),
      order('3', { shipping_city: 'Austin' }),
      order('4', { customer_id: 'c9' }),
    ];
    const sealed = await sealPersonal(keys, account, given.map(tagged));
    expect(store.calls).toBe(1);
    expect(sealed[0]!.order).toMatchObject({
      customer_id: 'c1',
      email: null,
      customer_name: null,
      shipping_zip: null,
    });
    expect(sealed[0]!.personal).toMatchObject({
      subject_id: `x:${blindIndex(indexKey, 'external_id', 'c1')}`,
      email_index: blindIndex(indexKey, 'email', 'ann@example.com'),
      phone_index: null,
    });
    expect(sealed[1]!.personal!.subject_id).toBe(`e:${blindIndex(indexKey, 'email', 'bob@example.com')}`);
    expect(sealed[2]!.personal!.subject_id).toBe('r:ev-3');
    // Nothing personal to hide: left as is, no key.
    expect(sealed[3]).toEqual(given[3]);
    expect(JSON.stringify(sealed)).not.toMatch(/ann@|bob@|Ann|Austin|10001|4155550100/);

    const opened = await openPersonal(keys, sealed.map(tagged));
    expect(opened.map((o) => o.value.order)).toEqual(given.map((g) => g.order));
    expect(opened[1]!.indexes.phone).toBe(blindIndex(indexKey, 'phone', '+14155550100'));
  });

  it('given a record in clear, then it is opened as is with its indexes computed from its clear values', async () => {
    const keys = new SubjectKeyCache(memoryStore());
    const clear = order('5', { customer_id: 'c1', email: 'ann@example.com' });
    const [o] = await openPersonal(keys, [tagged(clear)]);
    expect(o).toEqual({
      value: clear,
      indexes: {
        externalId: blindIndex(indexKey, 'external_id', 'c1'),
        email: blindIndex(indexKey, 'email', 'ann@example.com'),
        phone: null,
      },
      subjectId: null,
      readable: true,
    });
  });

  it('given a destroyed key, then the record opens with null personal fields and its indexes kept', async () => {
    const store = memoryStore();
    const keys = new SubjectKeyCache(store);
    const [sealed] = await sealPersonal(keys, account, [
      tagged(order('6', { email: 'ann@example.com', customer_name: 'Ann' })),
    ]);
    await store.destroy(account, [sealed!.personal!.subject_id], 'e1');
    await keys.refresh();
    expect(openPersonalCached(keys, [tagged(sealed!)])).toBeUndefined();
    const [o] = await openPersonal(keys, [tagged(sealed!)]);
    expect(o!.readable).toBe(false);
    expect(o!.value.order).toMatchObject({ email: null, customer_name: null });
    expect(o!.indexes.email).toBe(blindIndex(indexKey, 'email', 'ann@example.com'));
  });

  it('given a ciphertext moved to another record, then opening it fails', async () => {
    const keys = new SubjectKeyCache(memoryStore());
    const [a, b] = await sealPersonal(keys, account, [
      tagged(order('7', { email: 'ann@example.com' })),
      tagged(order('8', { email: 'ann@example.com' })),
    ]);
    const moved = { ...b!, personal: a!.personal };
    await expect(openPersonal(keys, [tagged(moved)])).rejects.toThrow(/does not open/);
  });
});
