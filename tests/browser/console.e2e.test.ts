/// <reference lib="dom" />
// The console in a real browser: Debian's Chromium driven by playwright-core, the console, the
// gateway and the projector in this process on the real stack. An owner accepts an invitation, signs
// in with the second factor, connects the custom integration, mints a key that the real ingest API
// then takes, and watches the tile go from "awaiting setup" to "connected" after a custom-api call.
// Another account's pages answer 404 however the URL is edited; axe-core finds no serious or
// critical violation on any page; every page's screenshot is written to docs/console/.
import { createServer, type Server } from 'node:http';
import { once } from 'node:events';
import { existsSync, mkdirSync } from 'node:fs';
import type { AddressInfo } from 'node:net';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { chromium, type Browser, type Page } from 'playwright-core';
import axe from 'axe-core';
import type { Kysely } from 'kysely';
import { connectTile, createAccount, createWebhookSubscription, inviteUser, mintApiKey } from '@holdfast/db';
import { silentLogger } from '@holdfast/platform';
import { createTestEnv, REPO_ROOT, type TestEnv } from '@holdfast/testing';
import { createConsole, loadConsoleConfig, totpCode } from '@holdfast/console';
import { migrateAnalytics, migrateCampaigns } from '@holdfast/migrations';
import type { RunningProjector } from '@holdfast/projections';
import { runProjector, startGateway, type TestGateway } from '@holdfast/testing/services';

const CHROMIUM = process.env.CHROMIUM_PATH ?? '/usr/bin/chromium';
const SHOTS = join(REPO_ROOT, 'docs', 'console');
const ARGS = [
  '--no-sandbox',
  '--disable-gpu',
  '--no-first-run',
  '--disable-background-networking',
  '--disable-sync',
];

let t: TestEnv;
let stack: TestGateway;
let projector: RunningProjector;
let browser: Browser;
let page: Page;
let server: Server;
let base: string;
let a: string;
let b: string;
let bSubscription: string;
let clockMs = Date.now();
const clock = () => new Date(clockMs);

/** The 6-digit code of the console's clock, one step on each time (a code is taken once). */
function nextCode(secret: string): string {
  clockMs += 30_000;
  return totpCode(secret, clock());
}

async function shot(name: string): Promise<void> {
  await page.screenshot({ path: join(SHOTS, `${name}.png`), fullPage: true });
}

/** axe-core's serious and critical violations on the current page (run outside the page's CSP). */
async function a11yProblems(): Promise<string[]> {
  await page.evaluate(axe.source);
  const violations = await page.evaluate(async () => {
    const run = (window as unknown as { axe: typeof axe }).axe.run;
    const r = await run(document, { resultTypes: ['violations'] });
    return r.violations.map((v) => ({ id: v.id, impact: v.impact, nodes: v.nodes.length }));
  });
  return violations
    .filter((v) => v.impact === 'serious' || v.impact === 'critical')
    .map((v) => `${v.id} (${v.nodes})`);
}

beforeAll(async () => {
  if (!existsSync(CHROMIUM))
    throw new Error(`${CHROMIUM} is missing: apt-get install chromium (scripts/ensure-system-tools.mjs)`);
  mkdirSync(SHOTS, { recursive: true });
  t = await createTestEnv('console_browser');
  await migrateAnalytics(t.db as Kysely<unknown>);
  await migrateCampaigns(t.db as Kysely<unknown>);
  [projector, stack] = await Promise.all([runProjector(t, 'console-browser'), startGateway(t)]);
  server = createServer();
  server.listen(0, '127.0.0.1');
  await once(server, 'listening');
  base = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
  const config = loadConsoleConfig({
    ...t.env,
    PORT: '0',
    HOLDFAST_CONSOLE_URL: base,
    HOLDFAST_GATEWAY_URL: stack.url,
  });
  server.on('request', createConsole(config, { pool: t.pool, logger: silentLogger, now: clock }));
  a = (await createAccount(t.db, { name: 'Tea shop', storefrontDomain: 'tea.example.com' })).id;
  b = (await createAccount(t.db, { name: 'Other shop' })).id;
  await mintApiKey(t.db, b, 'ingest_live');
  bSubscription = (await createWebhookSubscription(t.db, b, 'https://hooks.other.example/h')).id;
  await createWebhookSubscription(t.db, a, 'https://hooks.tea.example/holdfast');
  browser = await chromium.launch({ executablePath: CHROMIUM, args: ARGS });
  page = await browser.newPage({ viewport: { width: 1200, height: 800 } });
}, 120_000);

afterAll(async () => {
  await browser?.close();
  server?.closeAllConnections();
  server?.close();
  await stack?.close();
  await projector?.stop();
  await t?.close();
});

describe('the console in Chromium', () => {
  let secret: string;
  const password = 'a long tea-shop passphrase';

  it('given an invitation link, when the owner sets a password and a second factor, then they are signed in', async () => {
    const inv = await inviteUser(t.db, { email: 'owner@tea.example', accountId: a, role: 'owner' });
    await page.goto(`${base}/invite/${inv.token}`);
    secret = (await page.locator('#totp-secret').textContent())!.trim();
    await shot('invite');
    expect(await a11yProblems()).toEqual([]);
    await page.fill('#password', password);
    await page.fill('#code', nextCode(secret));
    await page.click('button[type=submit]');
    await page.waitForURL(`${base}/accounts/${a}`);
    await page.click('text=Sign out');
    await page.waitForURL(`${base}/sign-in`);
  });

  it('given the password and then the code, when the owner signs in, then the account opens', async () => {
    await shot('sign-in');
    expect(await a11yProblems()).toEqual([]);
    await page.fill('#email', 'owner@tea.example');
    await page.fill('#password', password);
    await page.click('button[type=submit]');
    await page.waitForURL(/\/sign-in\/code/);
    await shot('sign-in-code');
    expect(await a11yProblems()).toEqual([]);
    await page.fill('#code', nextCode(secret));
    await page.click('button[type=submit]');
    await page.waitForURL(`${base}/accounts/${a}`);
    const cookies = await page.context().cookies();
    expect(cookies.find((c) => c.name.includes('holdfast_console'))).toMatchObject({
      httpOnly: true,
      sameSite: 'Strict',
    });
    await expect(page.locator('#custom-integration [data-state]').textContent()).resolves.toBe(
      'not connected',
    );
  });

  it('given a key minted in the console, when the custom API is called with it, then the tile goes from awaiting setup to connected', async () => {
    await page.click('#custom-integration button:has-text("Connect")');
    await expect(page.locator('#custom-integration [data-state]').textContent()).resolves.toBe(
      'awaiting setup',
    );
    await page.goto(`${base}/accounts/${a}/keys`);
    await page.click('button:has-text("Mint an ingest key")');
    const key = (await page.locator('#new-key').textContent())!.trim();
    expect(key).toMatch(/^tk_live_[A-Za-z0-9]{32}$/);
    // The docs show the page, not a key (even a test database's): the secret is masked in the picture.
    await page
      .locator('#new-key')
      .evaluate((el) => (el.textContent = `${el.textContent.trim().slice(0, 12)}…`));
    await shot('keys');
    expect(await a11yProblems()).toEqual([]);
    const health = await fetch(`${stack.url}/ingest/health`, { headers: { authorization: `Bearer ${key}` } });
    expect(health.status).toBe(200);
    expect(((await health.json()) as { account_id: string }).account_id).toBe(a);
    const custom = await fetch(`${stack.url}/webhooks/custom-api`, {
      method: 'POST',
      headers: { authorization: `Bearer ${key}`, 'content-type': 'application/json' },
      body: JSON.stringify({ external_id: 'C1', email: 'ann@example.com', event_type: 'signup' }),
    });
    expect(custom.status).toBe(200);
    await page.goto(`${base}/accounts/${a}`);
    await expect(page.locator('#custom-integration [data-state]').textContent()).resolves.toBe('connected');
    await shot('integrations');
    expect(await a11yProblems()).toEqual([]);
  });

  it('given a known lifecycle mix, when its dashboard is opened, then the plot and its table show those numbers', async () => {
    // Two recomputes' mix, as the recompute writes it (analytics.lifecycle_mix), read back through
    // the read API's GET /v1/reports/lifecycle-mix by the console's own short-lived read key.
    for (const [asOf, counts] of [
      ['2026-10-01T02:00:00Z', { Stable: 120, Slowing: 30, Overdue: 10, Lapsed: 5 }],
      ['2026-11-01T02:00:00Z', { Stable: 110, Slowing: 35, Overdue: 12, Lapsed: 8 }],
    ] as const)
      for (const [state, n] of Object.entries(counts))
        await t.pool.query(
          `insert into analytics.lifecycle_mix (account_id, as_of, lifecycle_state, customers) values ($1, $2, $3, $4)`,
          [a, asOf, state, n],
        );
    const r = await page.goto(`${base}/accounts/${a}/dashboards/lifecycle-mix`);
    expect(r!.status()).toBe(200);
    await expect(page.locator('figure.hf-chart svg[role=img]').count()).resolves.toBeGreaterThan(0);
    const cells = await page
      .locator('figure.hf-chart table')
      .first()
      .evaluate((t) => t.textContent ?? '');
    for (const n of ['120', '30', '110', '35', 'Lapsed']) expect(cells).toContain(n);
    await shot('dashboard-lifecycle-mix');
    expect(await a11yProblems()).toEqual([]);
  });

  it('given every other page, when opened, then it renders with no serious or critical accessibility violation', async () => {
    await connectTile(t.db, a, 'zero_party');
    for (const [path, name] of [
      ['/dashboards', 'dashboards'],
      ['/dashboards/lift', 'dashboard-lift'],
      ['/dashboards/campaign-funnel', 'dashboard-campaign-funnel'],
      ['/webhooks', 'webhooks'],
      ['/campaigns', 'campaigns'],
      ['/settings', 'settings'],
      ['/activity', 'activity'],
      ['/sync', 'sync'],
      ['/dead-letters', 'dead-letters'],
      ['/people', 'people'],
      ['/audit', 'audit'],
    ] as const) {
      const r = await page.goto(`${base}/accounts/${a}${path}`);
      expect(r!.status(), path).toBe(200);
      await shot(name);
      expect(await a11yProblems(), path).toEqual([]);
    }
    await expect(page.locator('main').textContent()).resolves.toContain('key.mint');
  });

  it('given the settings page, when the owner saves a currency no rate quotes and then EUR, then the form says why and then EUR is kept', async () => {
    await page.goto(`${base}/accounts/${a}/settings`);
    await page.fill('#currency', 'XYZ');
    await page.click('button:has-text("Save currency")');
    await expect(page.locator('main').textContent()).resolves.toContain('no reference rates quote XYZ');
    await page.fill('#currency', 'EUR');
    await page.click('button:has-text("Save currency")');
    await page.waitForURL(`${base}/accounts/${a}/settings`);
    expect(await page.inputValue('#currency')).toBe('EUR');
  });

  it("given another account's ids, when the owner edits the URL, then every page answers 404", async () => {
    for (const path of [
      `/accounts/${b}`,
      `/accounts/${b}/keys`,
      `/accounts/${b}/webhooks/${bSubscription}`,
      `/accounts/${a}/webhooks/${bSubscription}`,
      `/accounts/${b}/people`,
      `/accounts/${b}/dashboards/lift`,
    ]) {
      const r = await page.goto(`${base}${path}`);
      expect(r!.status(), path).toBe(404);
      await expect(page.locator('main').textContent()).resolves.not.toContain('Other shop');
    }
    await shot('not-found');
  });
});
