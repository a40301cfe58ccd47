/// <reference lib="dom" />
// The browser pixel in a real browser: Debian's Chromium driven by playwright-core (never a browser
// download), pages served from local origins, the gateway and the projector in this process on the
// real stack. What the loader sends is read back from read_models.pixel_events.
import { once } from 'node:events';
import { existsSync } from 'node:fs';
import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { chromium, type Browser, type BrowserContext, type Page } from 'playwright-core';
import { createAccount, createPixelKey } from '@holdfast/control-plane';
import { createTestEnv, type TestEnv } from '@holdfast/testing';
import { runProjector, startGateway, type TestGateway } from '@holdfast/testing/services';
import type { RunningProjector } from '@holdfast/projections';

const CHROMIUM = process.env.CHROMIUM_PATH ?? '/usr/bin/chromium';
const ARGS = [
  '--no-sandbox',
  '--disable-gpu',
  '--disable-quic',
  '--no-first-run',
  '--disable-background-networking',
  '--disable-component-update',
  '--disable-sync',
];

interface Hit {
  readonly method: string;
  readonly path: string;
  readonly origin: string | undefined;
  readonly type: string | undefined;
  readonly status: number;
}

let t: TestEnv;
let projector: RunningProjector;
let stack: TestGateway;
let browser: Browser;
let shop: { origin: string; server: Server };
let other: { origin: string; server: Server };
const hits: Hit[] = [];

/** A storefront: every path is a page that loads the pixel with the attributes of its first segment. */
async function storefront(): Promise<{ origin: string; server: Server }> {
  const server = createServer((req, res) => {
    const url = new URL(req.url ?? '/', 'http://x');
    const consent = url.pathname.startsWith('/consent/') ? ' data-service-consent="required"' : '';
    const key = url.searchParams.get('key') ?? '';
    res.setHeader('content-type', 'text/html; charset=utf-8');
    res.end(`<!doctype html><html><head><meta charset="utf-8"><title>Tea shop</title>
      <script async src="${stack.url}/pixel/v1/service-pixel.js" data-key="${key}"${consent}></script>
      </head><body><h1>Tea</h1></body></html>`);
  });
  server.listen(0, '127.0.0.1');
  await once(server, 'listening');
  return { origin: `http://127.0.0.1:${(server.address() as AddressInfo).port}`, server };
}

async function pixelKey(origins: string[]) {
  const { id: accountId } = await createAccount(t.db, { name: 'Tea shop' });
  const { key } = await createPixelKey(t.db, accountId, origins);
  return { accountId, key };
}

/** A row of read_models.pixel_events, as far as this test reads it. */
interface PixelRow {
  readonly event_type: string;
  readonly url_path: string | null;
  readonly session_id: string | null;
  readonly raw_props: unknown;
  readonly [column: string]: unknown;
}

async function rows(accountId: string): Promise<PixelRow[]> {
  const { rows } = await t.pool.query<PixelRow>(
    `select event_type, origin, anonymous_id, session_id, url_path, page_title, product_external_id,
            price_cents, consent_state, raw_props
       from read_models.pixel_events where account_id = $1 order by occurred_at, event_id`,
    [accountId],
  );
  return rows;
}

async function until<T>(fn: () => Promise<T>, ok: (v: T) => boolean, ms = 20_000): Promise<T> {
  const deadline = Date.now() + ms;
  for (;;) {
    const v = await fn();
    if (ok(v)) return v;
    if (Date.now() > deadline) throw new Error(`not met in ${ms} ms: ${JSON.stringify(v)}`);
    await new Promise((r) => setTimeout(r, 100));
  }
}

const sleep = (ms: number) => new Promise((r) => setTimeout(r, ms));
const collectHits = (origin: string) =>
  hits.filter((h) => h.path === '/pixel/collect' && h.origin === origin);

async function open(context: BrowserContext, url: string): Promise<Page> {
  const page = await context.newPage();
  await page.goto(url);
  await page.waitForFunction(() => (window as { holdfast?: { loaded?: boolean } }).holdfast?.loaded === true);
  return page;
}

beforeAll(async () => {
  if (!existsSync(CHROMIUM)) throw new Error(`${CHROMIUM} is missing: apt-get install -y chromium`);
  t = await createTestEnv('browserpixel');
  projector = await runProjector(t);
  stack = await startGateway(t);
  stack.server.on('request', (req, res) =>
    res.once('finish', () =>
      hits.push({
        method: req.method ?? '',
        path: (req.url ?? '').split('?')[0]!,
        origin: req.headers.origin,
        type: req.headers['content-type'],
        status: res.statusCode,
      }),
    ),
  );
  shop = await storefront();
  other = await storefront();
  browser = await chromium.launch({ executablePath: CHROMIUM, headless: true, args: ARGS });
});

afterAll(async () => {
  await browser?.close();
  for (const s of [shop, other]) s?.server.close();
  await stack?.close();
  await projector?.stop();
  await t?.close();
});

describe('the pixel in Chromium', () => {
  it('given data-service-consent=required, when the page tracks, then nothing is sent or stored until consent, and then the events land', async () => {
    const k = await pixelKey([shop.origin]);
    const before = collectHits(shop.origin).length;
    const context = await browser.newContext();
    const page = await open(context, `${shop.origin}/consent/products/tea?key=${k.key}&utm_content=trk_abc`);
    await page.evaluate(() =>
      window.holdfast.track('add_to_cart', {
        product_external_id: 'SKU-1',
        price_cents: 1250,
        color: 'green',
      }),
    );
    await sleep(2_500);
    expect(collectHits(shop.origin)).toHaveLength(before);
    expect(await page.evaluate(() => Object.keys(localStorage))).toEqual([]);
    expect(await context.cookies()).toEqual([]);

    await page.evaluate(() => window.holdfast.consent(true));
    const stored = await until(
      () => rows(k.accountId),
      (r) => r.length === 2,
    );
    const aid = await page.evaluate(() => localStorage.getItem('hf_aid'));
    expect(stored.map((r) => r.event_type)).toEqual(['page_view', 'add_to_cart']);
    for (const r of stored)
      expect(r).toMatchObject({
        origin: shop.origin,
        anonymous_id: aid,
        session_id: stored[0]!.session_id,
        url_path: '/consent/products/tea',
        page_title: 'Tea shop',
        consent_state: 'granted',
        raw_props: expect.objectContaining({ utm_content: 'trk_abc' }),
      });
    expect(stored[1]).toMatchObject({ product_external_id: 'SKU-1', price_cents: 1250 });
    expect(stored[1]!.raw_props).toEqual({ utm_content: 'trk_abc', color: 'green' });
    // The browser posted JSON after a CORS preflight that the gateway allowed.
    expect(collectHits(shop.origin).slice(before)).toEqual(
      expect.arrayContaining([
        expect.objectContaining({ method: 'OPTIONS', status: 204 }),
        expect.objectContaining({ method: 'POST', type: 'application/json', status: 204 }),
      ]),
    );
    await context.close();
  });

  it('given a single-page app, when holdfast.track runs on route changes, then batches hold at most 50 events and 48 KB', async () => {
    const k = await pixelKey([shop.origin]);
    const context = await browser.newContext();
    const bodies: string[] = [];
    context.on('request', (r) => {
      if (r.method() === 'POST' && r.url().endsWith('/pixel/collect')) bodies.push(r.postData() ?? '');
    });
    const page = await open(context, `${shop.origin}/plain/?key=${k.key}`);
    await page.evaluate(() => {
      for (let i = 0; i < 110; i++) {
        history.pushState({}, '', `/route/${i}`);
        window.holdfast.track('page_view');
      }
      for (let i = 0; i < 40; i++) window.holdfast.track('product_view', { note: 'x'.repeat(2_000) });
    });
    const stored = await until(
      () => rows(k.accountId),
      (r) => r.length === 151,
    );
    expect(stored.filter((r) => r.event_type === 'page_view' && r.url_path === '/route/109')).toHaveLength(1);
    const measure = () =>
      bodies.map((b) => ({
        bytes: Buffer.byteLength(b),
        events: (JSON.parse(b) as { events: unknown[] }).events.length,
      }));
    // Playwright reports requests asynchronously: the last one may be reported after its rows landed.
    const sizes = await until(
      () => Promise.resolve(measure()),
      (m) => m.reduce((n, s) => n + s.events, 0) === 151,
      5_000,
    );
    expect(Math.max(...sizes.map((s) => s.events))).toBe(50);
    expect(Math.max(...sizes.map((s) => s.bytes))).toBeLessThanOrEqual(48 * 1024);
    expect(sizes.some((s) => s.events < 50 && s.bytes > 40 * 1024)).toBe(true); // split by bytes
    await context.close();
  });

  it('given a page that is left right after tracking, when it is hidden, then the events are flushed with sendBeacon', async () => {
    const k = await pixelKey([shop.origin]);
    const context = await browser.newContext();
    const page = await open(context, `${shop.origin}/plain/checkout?key=${k.key}`);
    await page.evaluate(() => window.holdfast.track('checkout_started'));
    await page.goto('about:blank');
    const stored = await until(
      () => rows(k.accountId),
      (r) => r.length === 2,
    );
    expect(stored.map((r) => r.event_type)).toEqual(['page_view', 'checkout_started']);
    expect(collectHits(shop.origin)).toContainEqual(
      expect.objectContaining({ method: 'POST', type: expect.stringMatching(/^text\/plain/i), status: 204 }),
    );
    await context.close();
  });

  it('given Global Privacy Control, when the page tracks and even grants consent, then nothing is sent or stored', async () => {
    const k = await pixelKey([shop.origin]);
    const before = collectHits(shop.origin).length;
    const context = await browser.newContext();
    await context.addInitScript(() =>
      Object.defineProperty(Navigator.prototype, 'globalPrivacyControl', {
        get: () => true,
        configurable: true,
      }),
    );
    const page = await open(context, `${shop.origin}/plain/?key=${k.key}`);
    await page.evaluate(() => {
      window.holdfast.track('add_to_cart', { product_external_id: 'SKU-2' });
      window.holdfast.consent(true);
      window.holdfast.flush();
    });
    await page.goto('about:blank');
    await sleep(2_500);
    expect(collectHits(shop.origin)).toHaveLength(before);
    expect(await rows(k.accountId)).toEqual([]);
    await context.close();
  });

  it('given a page on an origin that is not on the allow-list, when it sends, then the gateway refuses it (403) and nothing is stored', async () => {
    const k = await pixelKey([shop.origin]);
    const context = await browser.newContext();
    const page = await open(context, `${other.origin}/plain/?key=${k.key}`);
    await until(
      () => Promise.resolve(collectHits(other.origin)),
      (h) => h.some((x) => x.method === 'OPTIONS'),
    );
    await page.evaluate(() => window.holdfast.track('add_to_cart'));
    await page.goto('about:blank'); // the beacon needs no preflight, so it reaches the collector
    const seen = await until(
      () => Promise.resolve(collectHits(other.origin)),
      (h) => h.some((x) => x.method === 'POST'),
    );
    expect(seen.filter((h) => h.method === 'OPTIONS').map((h) => h.status)).toEqual([403]);
    expect(seen.filter((h) => h.method === 'POST').map((h) => h.status)).toEqual([403]);
    await sleep(1_000);
    expect(await rows(k.accountId)).toEqual([]);
    await context.close();
  });
});

declare global {
  interface Window {
    holdfast: {
      loaded: boolean;
      track(type: string, props?: Record<string, unknown>): void;
      consent(granted: boolean): void;
      flush(): void;
    };
  }
}
