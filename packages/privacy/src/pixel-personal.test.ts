import { randomBytes } from 'node:crypto';
import { describe, expect, it } from 'vitest';
import { anonymousSubject, blindIndex } from './blind-index.js';
import { openPixelPersonal, sealPixelPersonal, type PixelEvent } from './pixel-personal.js';
import { SubjectKeyCache } from './subject-key-cache.js';
import type { SubjectKeyStore } from './subject-key-store.js';

const indexKey = randomBytes(32);
const account = '0b7c1f6e-4a8e-4f0a-9d7e-2f8a1c3b5d7e';

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

let n = 0;
const pixel = (anonymousId: string, over: Partial<PixelEvent> = {}): PixelEvent => ({
  metadata: {
    account_id: account,
    event_id: `ev-${++n}`,
    batch_id: null,
    request_id: null,
    key_id: null,
    received_at: '2026-11-27T00:00:00.000Z',
  },
  pixel_key_id: 'pk-1',
  origin: 'https://shop.example.com',
  event_id: `client-${n}`,
  event_type: 'page_view',
  occurred_at: '2026-11-27T00:00:00.000Z',
  anonymous_id: anonymousId,
  session_id: 's-1',
  url_path: '/tea',
  page_title: null,
  referrer_host: null,
  product_external_id: null,
  collection: null,
  search: null,
  price_cents: null,
  dwell_ms: null,
  consent_state: 'granted',
  raw_props_json: null,
  personal: null,
  ...over,
});

const personal = {
  raw_props_json: '{"email":"ada@example.com"}',
  search: 'ada lovelace',
  page_title: 'Hi Ada',
};

describe('sealPixelPersonal', () => {
  it('given events with raw_props, search or a title, when sealed, then those fields are null in clear, sealed under the browser subject, in one key round trip', async () => {
    const store = memoryStore();
    const keys = new SubjectKeyCache(store);
    const events = [
      pixel('anon-ada', personal),
      pixel('anon-ada', { search: 'tea' }),
      pixel('anon-bob', personal),
    ];

    const sealed = await sealPixelPersonal(keys, account, events);

    expect(store.calls).toBe(1);
    const adaSubject = anonymousSubject(blindIndex(indexKey, 'anonymous_id', 'anon-ada'));
    expect(sealed.map((e) => e.personal?.subject_id)).toEqual([
      adaSubject,
      adaSubject,
      anonymousSubject(blindIndex(indexKey, 'anonymous_id', 'anon-bob')),
    ]);
    for (const e of sealed) {
      expect([e.raw_props_json, e.search, e.page_title]).toEqual([null, null, null]);
      expect(e.anonymous_id).toMatch(/^anon-/); // analytics and stitching keys stay in clear
      expect(e.personal!.ciphertext.includes(Buffer.from('ada'))).toBe(false);
    }
  });

  it('given an event with no personal value, when sealed, then it is unchanged and no key is made', async () => {
    const store = memoryStore();
    const e = pixel('anon-1');
    expect(await sealPixelPersonal(new SubjectKeyCache(store), account, [e])).toEqual([e]);
    expect(store.calls).toBe(0);
  });
});

describe('sealPixelPersonal for an erased browser (migrate-log)', () => {
  it('given its subject among the erased, when sealed, then its fields are dropped (empty ciphertext) and no key is made', async () => {
    const store = memoryStore();
    const keys = new SubjectKeyCache(store);
    const subject = anonymousSubject(blindIndex(indexKey, 'anonymous_id', 'anon-gone'));

    const [e] = await sealPixelPersonal(keys, account, [pixel('anon-gone', personal)], {
      erased: new Set([subject]),
    });

    expect(e!.personal).toEqual({ subject_id: subject, ciphertext: Buffer.alloc(0) });
    expect([e!.raw_props_json, e!.search, e!.page_title]).toEqual([null, null, null]);
    expect(store.calls).toBe(0);
    expect((await openPixelPersonal(keys, [e!]))[0]!.readable).toBe(false);
  });
});

describe('openPixelPersonal', () => {
  it('given sealed events, when opened, then the fields are back and personal is null', async () => {
    const keys = new SubjectKeyCache(memoryStore());
    const e = pixel('anon-ada', personal);
    const [opened] = await openPixelPersonal(keys, await sealPixelPersonal(keys, account, [e]));
    expect(opened).toEqual({ value: { ...e, personal: null }, readable: true });
  });

  it('given events written in clear (before sealing), when opened, then they fold as they are', async () => {
    const e = pixel('anon-ada', personal);
    expect(await openPixelPersonal(new SubjectKeyCache(memoryStore()), [e])).toEqual([
      { value: e, readable: true },
    ]);
  });

  it("given the browser's key destroyed, when opened, then its events fold with the personal fields null; others are readable", async () => {
    const store = memoryStore();
    const keys = new SubjectKeyCache(store);
    const sealed = await sealPixelPersonal(keys, account, [
      pixel('anon-ada', personal),
      pixel('anon-bob', personal),
    ]);
    await store.destroy(account, [sealed[0]!.personal!.subject_id], 'erasure-1');
    await keys.refresh();

    const [ada, bob] = await openPixelPersonal(keys, sealed);

    expect(ada!.readable).toBe(false);
    expect([ada!.value.raw_props_json, ada!.value.search, ada!.value.page_title]).toEqual([null, null, null]);
    expect(bob).toMatchObject({ readable: true, value: { search: personal.search } });
  });

  it('given the browser back after the erasure (a NEW key for the same subject), when its old and new events are opened, then the old fold null (never a poison record) and the new are readable', async () => {
    const store = memoryStore();
    const keys = new SubjectKeyCache(store);
    const [old] = await sealPixelPersonal(keys, account, [pixel('anon-ada', personal)]);
    await store.destroy(account, [old!.personal!.subject_id], 'erasure-1');
    await keys.refresh();
    const [fresh] = await sealPixelPersonal(keys, account, [pixel('anon-ada', { search: 'back again' })]);

    const [o, f] = await openPixelPersonal(keys, [old!, fresh!]);

    expect(o).toMatchObject({ readable: false, value: { raw_props_json: null, search: null } });
    expect(f).toMatchObject({ readable: true, value: { search: 'back again' } });
  });

  it('given a ciphertext moved to another event, when opened, then it yields nothing (the aad binds it to its event)', async () => {
    const keys = new SubjectKeyCache(memoryStore());
    const [a, b] = await sealPixelPersonal(keys, account, [
      pixel('anon-ada', personal),
      pixel('anon-ada', { search: 'x' }),
    ]);
    const moved = { ...b!, personal: a!.personal };
    const [opened] = await openPixelPersonal(keys, [moved]);
    expect(opened).toMatchObject({ readable: false, value: { raw_props_json: null, search: null } });
  });
});
