import { request } from 'node:http';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { revokePixelKey } from '@holdfast/control-plane';
import type { RunningProjector } from '@holdfast/projections';
import { createTestEnv, type TestEnv, until } from '@holdfast/testing';
import { runProjector, startGateway, type TestGateway } from '@holdfast/testing/services';
import { PIXEL_DETAIL } from '../../src/pixel/collect-route.js';
import {
  collect as post,
  pixelEvent,
  pixelKey as fixtureKey,
  SHOP,
  storedPixelEvents,
  type CollectOptions,
} from './testing/collector-client.js';

let t: TestEnv;
let projector: RunningProjector;
let stack: TestGateway;

const event = pixelEvent;
const pixelKey = (origins = [SHOP], o: { demo?: boolean } = {}) => fixtureKey(t, origins, o);
const collect = (body: unknown, o: CollectOptions = {}) => post(stack.url, body, o);
const stored = (accountId: string) => storedPixelEvents(t, accountId);

beforeAll(async () => {
  t = await createTestEnv('pixelcollect');
  projector = await runProjector(t);
  stack = await startGateway(t);
});

afterAll(async () => {
  await stack?.close();
  await projector?.stop();
  await t?.close();
});

describe('POST /pixel/collect accepts', () => {
  it('given a valid key, an allowed origin and granted consent, when events are posted, then 204 without body and they land in read_models.pixel_events', async () => {
    const k = await pixelKey();
    const e1 = event({ raw_props: { utm_content: 'trk_1', variant: 'b' } });
    const e2 = event({ event_type: 'add_to_cart', product_external_id: 'SKU-1', price_cents: 1250 });
    const res = await collect({ key: k.key, events: [e1, e2] });
    expect(res.status).toBe(204);
    expect(res.text).toBe('');
    expect(res.headers.get('access-control-allow-origin')).toBe(SHOP);
    expect(res.headers.get('vary')).toMatch(/Origin/);
    const rows = await until(
      () => stored(k.accountId),
      (r) => r.length === 2,
    );
    expect(rows.find((r) => r.event_id === e1.event_id)).toMatchObject({
      event_type: 'page_view',
      origin: SHOP,
      pixel_key_id: k.keyId,
      anonymous_id: 'anon-1',
      session_id: 'sess-1',
      consent_state: 'granted',
      raw_props: { utm_content: 'trk_1', variant: 'b' },
    });
  });

  it('given a text/plain body (navigator.sendBeacon), when posted, then it is accepted as JSON', async () => {
    const k = await pixelKey();
    const res = await collect({ key: k.key, events: [event()] }, { type: 'text/plain;charset=UTF-8' });
    expect(res.status).toBe(204);
    await until(
      () => stored(k.accountId),
      (r) => r.length === 1,
    );
  });

  it('given events out of the time window or without granted consent, when posted, then 204 and only the others are stored', async () => {
    const k = await pixelKey();
    const day = 86_400_000;
    const keep = event({ occurred_at: new Date(Date.now() - 29 * day).toISOString() });
    const dropped = [
      event({ occurred_at: new Date(Date.now() - 31 * day).toISOString() }),
      event({ occurred_at: new Date(Date.now() + 2 * 3_600_000).toISOString() }),
      event({ consent_state: null }),
      event({ consent_state: 'denied' }),
      event({ consent_state: undefined }),
    ];
    expect((await collect({ key: k.key, events: dropped })).status).toBe(204);
    expect((await collect({ key: k.key, events: [...dropped, keep] })).status).toBe(204);
    await until(
      () => stored(k.accountId),
      (r) => r.length >= 1,
    );
    await new Promise((r) => setTimeout(r, 500));
    expect((await stored(k.accountId)).map((r) => r.event_id)).toEqual([keep.event_id]);
  });
});

describe('POST /pixel/collect refuses', () => {
  it.each([
    [
      'an unknown key',
      async () => ({ ...(await pixelKey()), key: 'pk_unknown_key' }),
      SHOP,
      PIXEL_DETAIL.invalidKey,
    ],
    [
      'a revoked key',
      async () => {
        const k = await pixelKey();
        await revokePixelKey(t.db, k.keyId);
        return k;
      },
      SHOP,
      PIXEL_DETAIL.invalidKey,
    ],
    [
      'an origin not on the allow-list',
      () => pixelKey(),
      'https://evil.example.com',
      PIXEL_DETAIL.originNotAllowed,
    ],
    [
      'another port of the allowed host',
      () => pixelKey(),
      'https://shop.example.com:8443',
      PIXEL_DETAIL.originNotAllowed,
    ],
    ['no Origin header', () => pixelKey(), null, PIXEL_DETAIL.originNotAllowed],
    ['a demo account', () => pixelKey([SHOP], { demo: true }), SHOP, PIXEL_DETAIL.demoAccount],
  ])(
    'given %s, when posted, then 403 {detail} and nothing is stored',
    async (_label, fixture, origin, detail) => {
      const k = await fixture();
      const res = await collect({ key: k.key, events: [event()] }, { origin });
      expect(res.status).toBe(403);
      expect(res.json).toEqual({ detail });
      expect(res.headers.get('access-control-allow-origin')).toBeNull();
      await new Promise((r) => setTimeout(r, 300));
      expect(await stored(k.accountId)).toEqual([]);
    },
  );

  it.each([
    [
      'an unknown event field',
      (key: string) => ({ key, events: [{ ...event(), user_email: 'a@b.co' }] }),
      ['body', 'events', 0, 'user_email'],
      'extra_forbidden',
    ],
    [
      'an unknown top-level field',
      (key: string) => ({ key, events: [event()], debug: true }),
      ['body', 'debug'],
      'extra_forbidden',
    ],
    ['no events', (key: string) => ({ key, events: [] }), ['body', 'events'], 'too_short'],
    [
      '51 events',
      (key: string) => ({ key, events: Array.from({ length: 51 }, () => event()) }),
      ['body', 'events'],
      'too_long',
    ],
    [
      'a bad event_type',
      (key: string) => ({ key, events: [event({ event_type: 'purchase' })] }),
      ['body', 'events', 0, 'event_type'],
      'enum',
    ],
  ])('given %s, when posted, then 422 with the validation body', async (_label, body, loc, type) => {
    const k = await pixelKey();
    const res = await collect(body(k.key));
    expect(res.status).toBe(422);
    expect(res.json.detail).toContainEqual(expect.objectContaining({ loc, type, msg: expect.any(String) }));
  });

  it('given a body that is not JSON, when posted, then 422 json_invalid', async () => {
    const res = await collect(null, { raw: '{"key": "pk_x", events: [' });
    expect(res.status).toBe(422);
    expect(res.json.detail[0]).toMatchObject({ type: 'json_invalid', loc: ['body', expect.any(Number)] });
  });

  it('given a declared body over 48 KB, when posted, then the plain-text 413', async () => {
    const k = await pixelKey();
    const big = { key: k.key, events: [event({ raw_props: { pad: 'x'.repeat(48 * 1024) } })] };
    const res = await collect(big);
    expect(res.status).toBe(413);
    expect(res.headers.get('content-type')).toMatch(/^text\/plain/);
    expect(res.text).toBe('payload too large');
  });

  it('given a chunked body that grows past 48 KB, when it streams in, then 413 is answered before the end', async () => {
    const { port } = new URL(stack.url);
    const status = await new Promise<number>((resolve, reject) => {
      const req = request({
        host: '127.0.0.1',
        port,
        method: 'POST',
        path: '/pixel/collect',
        headers: { origin: SHOP },
      });
      req.on('response', (res) => {
        res.resume();
        resolve(res.statusCode ?? 0);
        req.destroy();
      });
      req.on('error', reject);
      req.write('{"key":"pk_x","events":[{"raw_props":{"pad":"');
      let sent = 0;
      const more = () => {
        if (sent > 1024 * 1024) return;
        sent += 8192;
        if (req.write('y'.repeat(8192))) setImmediate(more);
        else req.once('drain', more);
      };
      more();
    });
    expect(status).toBe(413);
  });
});
