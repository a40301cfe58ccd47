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
import {
  connectTile,
  createAccount,
  createWebhookSubscription,
  inviteUser,
  mintApiKey,
} from '@holdfast/control-plane';
import { defaultSecretsKeyring } from '@holdfast/secrets';
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

/** The docs show the page, not a secret (even a test database's): masked in the picture. */
async function maskSecret(selector: string): Promise<void> {
  await page.locator(selector).evaluate((el) => (el.textContent = `${el.textContent.trim().slice(0, 12)}…`));
}

/** axe-core's serious and critical violations on the current page (run outside the page's CSP). */
async function a11yProblems(on: Page = page): Promise<string[]> {
  await on.evaluate(axe.source);
  const violations = await on.evaluate(async () => {
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
    // The dispatcher's public key: the webhooks page mints secrets sealed to it (it opens nothing).
    HOLDFAST_WEBHOOK_SEAL_KEY: defaultSecretsKeyring().webhookSealKeySetting(),
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

  it('given the settings page, when the owner saves a timezone, then it goes through the outbox, the log and the projector into the read model the page shows', async () => {
    await page.goto(`${base}/accounts/${a}/settings`);
    await page.fill('#timezone', 'CST');
    await page.click('button:has-text("Save timezone")');
    await expect(page.locator('main').textContent()).resolves.toContain("'CST' is not an IANA timezone name");
    await page.fill('#timezone', 'Europe/Paris');
    await page.click('button:has-text("Save timezone")');
    await page.waitForURL(`${base}/accounts/${a}/settings`);
    // The gateway's relay appends it (every 2 s); the projector folds it; the page reads the read model.
    const deadline = Date.now() + 60_000;
    for (;;) {
      if ((await page.locator('#store-timezone').textContent()) === 'Europe/Paris') break;
      if (Date.now() > deadline) throw new Error('the timezone never reached the read model');
      await new Promise((r) => setTimeout(r, 500));
      await page.reload();
    }
    await expect(page.locator('#timezone-pending').count()).resolves.toBe(0);
    const { rows } = await t.pool.query(
      `select detail from control.audit_log where account_id = $1 and action = 'settings.timezone'`,
      [a],
    );
    expect(rows.map((r: { detail: unknown }) => r.detail)).toEqual([{ from: null, to: 'Europe/Paris' }]);
    expect((await t.pool.query('select 1 from control.settings_outbox')).rowCount).toBe(0);
    await shot('settings');
    expect(await a11yProblems()).toEqual([]);
  });

  it('given the webhooks page, when the owner creates a subscription choosing its events and rotates its secret, then each secret is shown once', async () => {
    await page.goto(`${base}/accounts/${a}/webhooks`);
    await page.fill('#webhook-url', 'https://hooks.tea.example/churn');
    await page.check('[id="event-customer.churned"]');
    await page.uncheck('[id="event-campaign.sent"]');
    await page.click('button:has-text("Create subscription")');
    const created = (await page.locator('#new-secret').textContent())!.trim();
    expect(created).toMatch(/^whsec_/);
    const row = page.locator('tr', { hasText: 'https://hooks.tea.example/churn' });
    await expect(row.locator('td').nth(1).textContent()).resolves.toBe('customer.churned');
    await maskSecret('#new-secret');
    await shot('webhooks-created');
    expect(await a11yProblems()).toEqual([]);
    await row.locator('select[name=grace]').selectOption('3600');
    await row.locator('button:has-text("Rotate secret")').click();
    const rotated = (await page.locator('#new-secret').textContent())!.trim();
    expect(rotated).toMatch(/^whsec_/);
    expect(rotated).not.toBe(created);
    await expect(page.locator('[role=status]').textContent()).resolves.toContain('also signs until');
    // Shown once: the list again holds neither secret.
    await page.goto(`${base}/accounts/${a}/webhooks`);
    const html = await page.content();
    expect(html).not.toContain(created);
    expect(html).not.toContain(rotated);
  });

  it('given a viewer, when they browse the account and post a change by hand, then the forms are hidden and the server refuses (403)', async () => {
    const ctx = await browser.newContext({ viewport: { width: 1200, height: 800 } });
    const v = await ctx.newPage();
    try {
      const inv = await inviteUser(t.db, { email: 'viewer@tea.example', accountId: a, role: 'viewer' });
      await v.goto(`${base}/invite/${inv.token}`);
      const vSecret = (await v.locator('#totp-secret').textContent())!.trim();
      await v.fill('#password', 'a long viewer passphrase');
      await v.fill('#code', nextCode(vSecret));
      await v.click('button[type=submit]');
      await v.waitForURL(`${base}/accounts/${a}`);
      for (const path of ['', '/keys', '/webhooks', '/campaigns', '/settings', '/people']) {
        const r = await v.goto(`${base}/accounts/${a}${path}`);
        expect(r!.status(), path).toBe(200);
        expect(await a11yProblems(v), path).toEqual([]);
      }
      await v.goto(`${base}/accounts/${a}/webhooks`);
      await expect(v.locator('button:has-text("Create subscription")').count()).resolves.toBe(0);
      await expect(v.locator('button:has-text("Rotate secret")').count()).resolves.toBe(0);
      await v.goto(`${base}/accounts/${a}/keys`);
      await expect(v.locator('button:has-text("Mint")').count()).resolves.toBe(0);
      await v.screenshot({ path: join(SHOTS, 'viewer-keys.png'), fullPage: true });
      // The audit log is for those who can act: refused, not only hidden.
      expect((await v.goto(`${base}/accounts/${a}/audit`))!.status()).toBe(403);
      // A change posted by hand from the viewer's own page, with their valid CSRF token: refused.
      for (const [action, fields] of [
        ['/keys/mint', { kind: 'ingest_live' }],
        ['/webhooks', { url: 'https://hooks.tea.example/x', event_types: 'campaign.sent' }],
        ['/settings/currency', { currency: 'EUR' }],
      ] as const) {
        await v.goto(`${base}/accounts/${a}/keys`);
        const answer = v.waitForResponse((r) => r.request().method() === 'POST');
        await v.evaluate(
          ({ action, fields }) => {
            const f = document.createElement('form');
            f.method = 'post';
            f.action = action;
            const csrf = document.querySelector<HTMLInputElement>('input[name=_csrf]')!.value;
            for (const [k, val] of Object.entries({ ...fields, _csrf: csrf })) {
              const i = document.createElement('input');
              i.type = 'hidden';
              i.name = k;
              i.value = val;
              f.append(i);
            }
            document.body.append(f);
            f.submit();
          },
          { action: `/accounts/${a}${action}`, fields },
        );
        expect((await answer).status(), action).toBe(403);
        await v.waitForLoadState();
        await expect(v.locator('main').textContent(), action).resolves.toContain('(viewer) cannot do this');
      }
      await v.screenshot({ path: join(SHOTS, 'viewer-refused.png'), fullPage: true });
      expect(await a11yProblems(v)).toEqual([]);
      // Nothing was minted by the viewer's posts: the owner's one ingest key is the only live one.
      const { rows } = await t.pool.query(
        `select 1 from control.api_keys where account_id = $1 and kind = 'ingest_live' and revoked_at is null`,
        [a],
      );
      expect(rows).toHaveLength(1);
    } finally {
      await ctx.close();
    }
  });

  it('given the recovery codes page, when the owner makes codes, then ten are shown once, and the page passes axe', async () => {
    await page.goto(`${base}/recovery-codes`);
    await page.click('button:has-text("Make recovery codes")');
    await expect(page.locator('#recovery-codes li').count()).resolves.toBe(10);
    await expect(page.locator('#recovery-left').textContent()).resolves.toBe('10');
    // The docs show the page, not the codes.
    await page
      .locator('#recovery-codes code')
      .evaluateAll((els) => els.forEach((el) => (el.textContent = 'XXXX-XXXX-XXXX-XXXX')));
    await shot('recovery-codes');
    expect(await a11yProblems()).toEqual([]);
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
