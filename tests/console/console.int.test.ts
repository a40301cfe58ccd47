// The console over HTTP on a real database: invitation, the two-step sign-in, sessions, CSRF and
// same-origin refusals, roles refused by the server, another account's ids answered 404, the key
// limit explained, lockout, the audit log, and no personal data in the log lines.
import { once } from 'node:events';
import type { Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { readFileSync } from 'node:fs';
import { ConsoleKeyring, defaultSecretsKeyring } from '@holdfast/secrets';
import { createDb, createPool, SERVICE_ROLES, type Pool } from '@holdfast/postgres';
import {
  listApiKeys,
  relaySettingsChanges,
  rewrapConsoleTotpSecrets,
  type PendingSettingsChange,
  sealConsoleTotpSecrets,
  mintApiKey,
  createWebhookSubscription,
} from '@holdfast/control-plane';
import { readReportingCurrency, ensureReadModelSchema, importReferenceRates } from '@holdfast/read-models';
import type { Logger } from '@holdfast/platform';
import { createTestEnv, type TestEnv } from '@holdfast/testing';
import type { Kysely } from 'kysely';
import { randomBytes, randomUUID } from 'node:crypto';
import { readCampaignSettings } from '@holdfast/campaign-store';
import { migrateAnalytics, migrateCampaigns, migrateDispatcher } from '@holdfast/migrations';
import { insertDeliveries, recordAttempt } from '../../services/dispatcher/src/delivery-store.js';
import { createConsole, loadConsoleConfig, totpCode } from '@holdfast/console';
import {
  ConsoleClient,
  csrfOf,
  invitedPerson,
  newAccount,
  TestClock,
  type Person,
} from './console-client.js';

const ECB_SAMPLE = new URL('../../packages/domain/fixtures/ecb-eurofxref-hist-sample.csv', import.meta.url);
/** The console's keys: c2 current, c1 an older one still configured (rotation). */
const CONSOLE_KEY_NEW = { id: 'c2', key: randomBytes(32) };
const CONSOLE_KEY_OLD = { id: 'c1', key: randomBytes(32) };
let t: TestEnv;
let consolePool: Pool;
let server: Server;
let base: string;
const clock = new TestClock();
const lines: string[] = [];
const logger: Logger = {
  debug: (e, c) => void lines.push(JSON.stringify({ e, c })),
  info: (e, c) => void lines.push(JSON.stringify({ e, c })),
  warn: (e, c) => void lines.push(JSON.stringify({ e, c })),
  error: (e, c) => void lines.push(JSON.stringify({ e, c })),
  child: () => logger,
};
let a: string;
let b: string;
let owner: Person;
let viewer: Person;
let ownerB: Person;

beforeAll(async () => {
  t = await createTestEnv('console');
  // The tables the campaign and webhook pages read (created by the recompute and the dispatcher).
  await migrateAnalytics(t.db as Kysely<unknown>);
  await migrateCampaigns(t.db as Kysely<unknown>);
  await migrateDispatcher(t.db as Kysely<unknown>);
  const config = loadConsoleConfig({
    ...t.env,
    PORT: '0',
    // The dispatcher's public key (it opens nothing): the webhooks page mints secrets sealed to it.
    HOLDFAST_WEBHOOK_SEAL_KEY: defaultSecretsKeyring().webhookSealKeySetting(),
    HOLDFAST_CONSOLE_KEYS: [CONSOLE_KEY_NEW, CONSOLE_KEY_OLD]
      .map((k) => `${k.id}:${k.key.toString('base64')}`)
      .join(','),
  });
  // The console connects as its own least-privilege role, as deployed: every page and change below
  // proves its grants are enough (and `least-privilege` tests what it may not touch).
  const url = new URL(t.databaseUrl);
  url.username = SERVICE_ROLES.console;
  url.password = '';
  consolePool = createPool(url.toString(), 'test-console', 4);
  server = createConsole(config, { pool: consolePool, logger, now: clock.now }).listen(0, '127.0.0.1');
  await once(server, 'listening');
  base = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
  a = await newAccount(t.db, 'Tea shop');
  b = await newAccount(t.db, 'Other shop');
  owner = await invitedPerson(t.db, base, clock, a, 'owner@tea.example', 'owner');
  viewer = await invitedPerson(t.db, base, clock, a, 'viewer@tea.example', 'viewer');
  ownerB = await invitedPerson(t.db, base, clock, b, 'owner@other.example', 'owner');
});

afterAll(async () => {
  server?.closeAllConnections();
  server?.close();
  await consolePool?.end();
  await t?.close();
});

async function signIn(
  p: Pick<Person, 'email' | 'password' | 'totpSecret'>,
  client = new ConsoleClient(base),
  next = '/',
) {
  const first = await client.post('/sign-in', { email: p.email, password: p.password, next });
  expect(first.status).toBe(303);
  const codePage = await client.get(first.headers.get('location')!);
  clock.step();
  const second = await client.post('/sign-in/code', {
    _csrf: csrfOf(codePage.text),
    code: totpCode(p.totpSecret, clock.now()),
    next,
  });
  return { client, first, second };
}

describe('the console over HTTP', () => {
  it('given an accepted invitation, when the owner opens the account, then its pages answer with strict headers', async () => {
    const r = await owner.client.get(`/accounts/${a}`);
    expect(r.status).toBe(200);
    expect(r.text).toContain('Custom integration');
    expect(r.text).toContain('not connected');
    expect(r.headers.get('content-security-policy')).toContain("frame-ancestors 'none'");
    expect(r.headers.get('x-frame-options')).toBe('DENY');
    expect(r.headers.get('referrer-policy')).toBe('same-origin');
    expect(r.headers.get('cache-control')).toBe('no-store');
    for (const page of [
      'keys',
      'webhooks',
      'campaigns',
      'settings',
      'activity',
      'sync',
      'dead-letters',
      'people',
      'audit',
    ])
      expect((await owner.client.get(`/accounts/${a}/${page}`)).status, page).toBe(200);
  });

  it('given a password, when the code is still owed, then no account page opens; the code opens a new session (fixation)', async () => {
    const client = new ConsoleClient(base);
    client.cookie = `holdfast_console_planted=${'x'.repeat(43)}`;
    const first = await client.post('/sign-in', {
      email: owner.email,
      password: owner.password,
      next: `/accounts/${a}/keys`,
    });
    expect(first.status).toBe(303);
    expect(first.headers.get('set-cookie')).toMatch(/HttpOnly/i);
    expect(first.headers.get('set-cookie')).toMatch(/SameSite=Strict/i);
    const half = client.cookie;
    const blocked = await client.get(`/accounts/${a}/keys`);
    expect(blocked.status).toBe(303);
    expect(blocked.headers.get('location')).toMatch(/^\/sign-in\/code/);
    const codePage = await client.get('/sign-in/code');
    clock.step();
    const second = await client.post('/sign-in/code', {
      _csrf: csrfOf(codePage.text),
      code: totpCode(owner.totpSecret, clock.now()),
      next: `/accounts/${a}/keys`,
    });
    expect(second.status).toBe(303);
    expect(second.headers.get('location')).toBe(`/accounts/${a}/keys`);
    expect(client.cookie).not.toBe(half);
    // The half session's cookie opens nothing any more.
    const stale = new ConsoleClient(base);
    stale.cookie = half;
    expect((await stale.get(`/accounts/${a}/keys`)).status).toBe(303);
  });

  it('given a code, when it is used a second time, then it is refused (replay)', async () => {
    const client = new ConsoleClient(base);
    await client.post('/sign-in', { email: owner.email, password: owner.password, next: '/' });
    const codePage = await client.get('/sign-in/code');
    // The code of the last accepted step (the previous test's) is within the drift window, and used.
    const used = totpCode(owner.totpSecret, clock.now());
    const r = await client.post('/sign-in/code', { _csrf: csrfOf(codePage.text), code: used, next: '/' });
    expect(r.status).toBe(401);
  });

  it('given a next page on another site, when signing in, then the console goes home instead (open redirect)', async () => {
    const { second } = await signIn(owner, new ConsoleClient(base), '//evil.example/steal');
    expect(second.headers.get('location')).toBe('/');
  });

  it('given the owner, when they mint a key, then it is shown once, listed by prefix and audited', async () => {
    const page = await owner.client.get(`/accounts/${a}/keys`);
    const r = await owner.client.post(`/accounts/${a}/keys/mint`, {
      _csrf: csrfOf(page.text),
      kind: 'ingest_live',
    });
    expect(r.status).toBe(200);
    const key = /(tk_live_[A-Za-z0-9]{32})/.exec(r.text)![1]!;
    const again = await owner.client.get(`/accounts/${a}/keys`);
    expect(again.text).not.toContain(key);
    expect(again.text).toContain(key.slice(0, 12));
    const audit = await owner.client.get(`/accounts/${a}/audit`);
    expect(audit.text).toContain('key.mint');
    expect(audit.text).toContain(owner.email);
  });

  it('given a live key, when the owner rotates it with a grace window and revokes the old one, then both are audited', async () => {
    const minted = await mintApiKey(t.db, a, 'ingest_live');
    const page = await owner.client.get(`/accounts/${a}/keys`);
    const r = await owner.client.post(`/accounts/${a}/keys/${minted.id}/rotate`, {
      _csrf: csrfOf(page.text),
      grace: '3600',
    });
    expect(r.status).toBe(200);
    const successor = /(tk_live_[A-Za-z0-9]{32})/.exec(r.text)![1]!;
    expect(successor).not.toBe(minted.key);
    const keys = await listApiKeys(t.db, a, clock.now());
    expect(keys.find((k) => k.id === minted.id)!.status).toBe('expiring');
    expect(keys.find((k) => k.prefix === successor.slice(0, 12))!.status).toBe('live');
    // A grace the page does not offer is refused.
    expect(
      (
        await owner.client.post(`/accounts/${a}/keys/${minted.id}/rotate`, {
          _csrf: csrfOf(page.text),
          grace: '99',
        })
      ).status,
    ).toBe(400);
    expect(
      (await owner.client.post(`/accounts/${a}/keys/${minted.id}/revoke`, { _csrf: csrfOf(page.text) }))
        .status,
    ).toBe(303);
    expect((await listApiKeys(t.db, a)).find((k) => k.id === minted.id)!.status).toBe('revoked');
    const audit = (await owner.client.get(`/accounts/${a}/audit`)).text;
    expect(audit).toContain('key.rotate');
    expect(audit).toContain('key.revoke');
    expect(audit).not.toContain(successor);
  });

  it('given a change, when its CSRF token is missing or its Origin is another site, then it is refused', async () => {
    const before = (await listApiKeys(t.db, a)).length;
    const page = await owner.client.get(`/accounts/${a}/keys`);
    expect((await owner.client.post(`/accounts/${a}/keys/mint`, { kind: 'ingest_live' })).status).toBe(403);
    // Another session's token (the viewer's) is not this session's.
    const othersToken = csrfOf((await viewer.client.get(`/accounts/${a}/keys`)).text);
    expect(
      (await owner.client.post(`/accounts/${a}/keys/mint`, { _csrf: othersToken, kind: 'ingest_live' }))
        .status,
    ).toBe(403);
    expect(
      (
        await owner.client.post(
          `/accounts/${a}/keys/mint`,
          { _csrf: csrfOf(page.text), kind: 'ingest_live' },
          { origin: 'https://evil.example' },
        )
      ).status,
    ).toBe(403);
    expect((await listApiKeys(t.db, a)).length).toBe(before);
  });

  it('given a viewer, when they post a change with a valid token, then the server refuses it (403) and nothing changes', async () => {
    const page = await viewer.client.get(`/accounts/${a}/keys`);
    expect(page.text).not.toContain('Mint an ingest key');
    const before = (await listApiKeys(t.db, a)).length;
    const r = await viewer.client.post(`/accounts/${a}/keys/mint`, {
      _csrf: csrfOf(page.text),
      kind: 'ingest_live',
    });
    expect(r.status).toBe(403);
    expect((await listApiKeys(t.db, a)).length).toBe(before);
    expect((await viewer.client.get(`/accounts/${a}/audit`)).status).toBe(403);
  });

  it("given another account's ids, when put in the URL, then every answer is 404 and its key stays live", async () => {
    const bKey = await mintApiKey(t.db, b, 'ingest_live');
    for (const path of [
      `/accounts/${b}`,
      `/accounts/${b}/keys`,
      `/accounts/${b}/audit`,
      '/accounts/not-a-uuid/keys',
    ])
      expect((await owner.client.get(path)).status, path).toBe(404);
    const page = await owner.client.get(`/accounts/${a}/keys`);
    const r = await owner.client.post(`/accounts/${a}/keys/${bKey.id}/revoke`, { _csrf: csrfOf(page.text) });
    expect(r.status).toBe(404);
    expect((await listApiKeys(t.db, b)).find((k) => k.id === bKey.id)!.status).toBe('live');
    // And B's owner sees nothing of A.
    expect((await ownerB.client.get(`/accounts/${a}`)).status).toBe(404);
  });

  it('given the owner, when they enable a campaign type and set the cap, then it is stored and audited', async () => {
    const page = await owner.client.get(`/accounts/${a}/campaigns`);
    expect(page.text).toContain('Enable win_back');
    expect(
      (await owner.client.post(`/accounts/${a}/campaigns/win_back/enable`, { _csrf: csrfOf(page.text) }))
        .status,
    ).toBe(303);
    expect(
      (
        await owner.client.post(`/accounts/${a}/campaigns/cap`, {
          _csrf: csrfOf(page.text),
          messages: '2',
          days: '14',
        })
      ).status,
    ).toBe(303);
    expect(
      (
        await owner.client.post(`/accounts/${a}/campaigns/cap`, {
          _csrf: csrfOf(page.text),
          messages: '0',
          days: '14',
        })
      ).status,
    ).toBe(400);
    const stored = await readCampaignSettings(t.pool, a);
    expect(stored.types.find((x) => x.campaignType === 'win_back')?.enabled).toBe(true);
    expect(stored.frequencyCap).toEqual({ messages: 2, days: 14 });
    const audit = (await owner.client.get(`/accounts/${a}/audit`)).text;
    expect(audit).toContain('campaign.enable');
    expect(audit).toContain('win_back');
    // A viewer's attempt is refused by the server.
    const vPage = await viewer.client.get(`/accounts/${a}/campaigns`);
    expect(
      (await viewer.client.post(`/accounts/${a}/campaigns/win_back/disable`, { _csrf: csrfOf(vPage.text) }))
        .status,
    ).toBe(403);
  });

  it("given a failed delivery, when the owner redelivers it, then it is pending again; another account's subscription is 404", async () => {
    const sub = await createWebhookSubscription(t.db, a, 'https://hooks.tea.example/h');
    const deliveryId = randomUUID();
    const client = await t.pool.connect();
    try {
      await insertDeliveries(
        client,
        [
          {
            deliveryId,
            accountId: a,
            subscriptionId: sub.id,
            event: 'campaign.sent',
            sourceId: 'trk-1',
            body: '{}',
          },
        ],
        clock.now(),
      );
    } finally {
      client.release();
    }
    const at = clock.now();
    await recordAttempt(
      t.db,
      {
        deliveryId,
        accountId: a,
        event: 'campaign.sent',
        body: '{}',
        attempts: 0,
        subscriptionId: sub.id,
        url: 'https://hooks.tea.example/h',
        secrets: [],
      },
      {
        attemptedAt: at,
        finishedAt: at,
        statusCode: 503,
        error: 'http_503',
        durationMs: 12,
        succeeded: false,
      },
      [],
    );
    const page = await owner.client.get(`/accounts/${a}/webhooks/${sub.id}`);
    expect(page.status).toBe(200);
    expect(page.text).toContain('HTTP 503');
    const r = await owner.client.post(`/accounts/${a}/webhooks/${sub.id}/redeliver`, {
      _csrf: csrfOf(page.text),
      delivery: deliveryId,
    });
    expect(r.status).toBe(200);
    expect(r.text).toContain('Scheduled 1 delivery');
    const { rows } = await t.pool.query<{ status: string }>(
      'select status from dispatcher.deliveries where delivery_id = $1',
      [deliveryId],
    );
    expect(rows[0]!.status).toBe('pending');
    const other = await createWebhookSubscription(t.db, b, 'https://hooks.other.example/h');
    expect((await owner.client.get(`/accounts/${a}/webhooks/${other.id}`)).status).toBe(404);
    expect(
      (await owner.client.post(`/accounts/${a}/webhooks/${other.id}/redeliver`, { _csrf: csrfOf(page.text) }))
        .status,
    ).toBe(404);
  });

  it('given the owner, when they create a subscription, then its secret is shown once, stored only sealed (to the dispatcher), and audited', async () => {
    const page = await owner.client.get(`/accounts/${a}/webhooks`);
    expect(page.text).toContain('New subscription');
    const r = await owner.client.post(`/accounts/${a}/webhooks`, {
      _csrf: csrfOf(page.text),
      url: 'https://hooks.tea.example/events',
      event_types: ['customer.churned', 'sync.completed'],
    });
    expect(r.status).toBe(200);
    const secret = /id="new-secret">(whsec_[^<]+)</.exec(r.text)![1]!;
    expect(r.text).toContain('customer.churned, sync.completed');
    const { rows } = await t.pool.query<{
      id: string;
      sub: string;
      event_types: string[];
      key_id: string;
      wrapped_key: Buffer;
      ciphertext: Buffer;
      plain: string | null;
    }>(
      `select k.id, s.id as sub, s.event_types, k.key_id, k.wrapped_key, k.ciphertext, s.secret as plain
         from control.webhook_subscriptions s join control.webhook_secrets k on k.subscription_id = s.id
        where s.account_id = $1 and s.url = 'https://hooks.tea.example/events'`,
      [a],
    );
    expect(rows).toHaveLength(1);
    expect(rows[0]!.plain).toBeNull();
    expect(rows[0]!.key_id).toMatch(/^x25519:/);
    expect(rows[0]!.event_types).toEqual(['customer.churned', 'sync.completed']);
    // The dispatcher's keyring opens what the console sealed: the very secret shown.
    expect(
      defaultSecretsKeyring().open(
        { keyId: rows[0]!.key_id, wrappedKey: rows[0]!.wrapped_key, ciphertext: rows[0]!.ciphertext },
        rows[0]!.id,
      ),
    ).toBe(secret);
    expect((await owner.client.get(`/accounts/${a}/webhooks`)).text).not.toContain(secret);
    const audit = await t.pool.query(
      `select detail from control.audit_log where account_id = $1 and action = 'webhook.create' and target = $2`,
      [a, rows[0]!.sub],
    );
    expect(JSON.stringify(audit.rows)).not.toContain('whsec_');
    expect(audit.rowCount).toBe(1);
  });

  it('given a bad URL or no event type, when a subscription is created, then the form says why and nothing is created', async () => {
    const page = await owner.client.get(`/accounts/${a}/webhooks`);
    const before = await t.pool.query('select 1 from control.webhook_subscriptions where account_id = $1', [
      a,
    ]);
    const r = await owner.client.post(`/accounts/${a}/webhooks`, {
      _csrf: csrfOf(page.text),
      url: 'https://user:pass@hooks.tea.example/hook',
    });
    expect(r.status).toBe(400);
    expect(r.text).toContain('That URL is refused');
    expect(r.text).toContain('Choose at least one event type.');
    const after = await t.pool.query('select 1 from control.webhook_subscriptions where account_id = $1', [
      a,
    ]);
    expect(after.rowCount).toBe(before.rowCount);
  });

  it('given a subscription, when the owner rotates its secret with a 1-hour grace, then a new secret is shown once and the old one signs for an hour more', async () => {
    const sub = await createWebhookSubscription(t.db, a, 'https://hooks.tea.example/rotate');
    const page = await owner.client.get(`/accounts/${a}/webhooks`);
    const r = await owner.client.post(`/accounts/${a}/webhooks/${sub.id}/rotate`, {
      _csrf: csrfOf(page.text),
      grace: '3600',
    });
    expect(r.status).toBe(200);
    const fresh = /id="new-secret">(whsec_[^<]+)</.exec(r.text)![1]!;
    expect(fresh).not.toBe(sub.secret);
    const { rows } = await t.pool.query<{ expires_at: Date | null }>(
      'select expires_at from control.webhook_secrets where subscription_id = $1 order by seq',
      [sub.id],
    );
    expect(rows.map((x) => x.expires_at?.getTime() ?? null)).toEqual([
      clock.now().getTime() + 3600_000,
      null,
    ]);
    const audit = await t.pool.query(
      `select 1 from control.audit_log where action = 'webhook.rotate_secret' and target = $1`,
      [sub.id],
    );
    expect(audit.rowCount).toBe(1);
    // A grace the page does not offer is refused, and changes nothing.
    expect(
      (
        await owner.client.post(`/accounts/${a}/webhooks/${sub.id}/rotate`, {
          _csrf: csrfOf(page.text),
          grace: '99',
        })
      ).status,
    ).toBe(400);
  });

  it("given a viewer or another account's subscription, when creating, rotating or removing, then 403 or 404 and nothing changes", async () => {
    const mine = await createWebhookSubscription(t.db, a, 'https://hooks.tea.example/kept');
    const other = await createWebhookSubscription(t.db, b, 'https://hooks.other.example/kept');
    const vpage = await viewer.client.get(`/accounts/${a}/webhooks`);
    expect(vpage.text).not.toContain('New subscription');
    expect(vpage.text).not.toContain('Rotate secret');
    const vcsrf = csrfOf(vpage.text);
    expect(
      (
        await viewer.client.post(`/accounts/${a}/webhooks`, {
          _csrf: vcsrf,
          url: 'https://x.example/h',
          event_types: ['campaign.sent'],
        })
      ).status,
    ).toBe(403);
    expect(
      (await viewer.client.post(`/accounts/${a}/webhooks/${mine.id}/rotate`, { _csrf: vcsrf, grace: '0' }))
        .status,
    ).toBe(403);
    expect(
      (await viewer.client.post(`/accounts/${a}/webhooks/${mine.id}/remove`, { _csrf: vcsrf })).status,
    ).toBe(403);
    const csrf = csrfOf((await owner.client.get(`/accounts/${a}/webhooks`)).text);
    expect(
      (await owner.client.post(`/accounts/${a}/webhooks/${other.id}/rotate`, { _csrf: csrf, grace: '0' }))
        .status,
    ).toBe(404);
    expect(
      (await owner.client.post(`/accounts/${a}/webhooks/${other.id}/remove`, { _csrf: csrf })).status,
    ).toBe(404);
    expect(
      (
        await owner.client.post(`/accounts/${a}/webhooks`, {
          url: 'https://x.example/h',
          event_types: ['campaign.sent'],
        })
      ).status,
    ).toBe(403);
    const { rows } = await t.pool.query<{ id: string; disabled_at: Date | null; n: number }>(
      `select s.id, s.disabled_at, (select count(*) from control.webhook_secrets k where k.subscription_id = s.id) as n
         from control.webhook_subscriptions s where s.id in ($1, $2)`,
      [mine.id, other.id],
    );
    expect(rows.map((x) => [x.disabled_at, x.n])).toEqual([
      [null, 1],
      [null, 1],
    ]);
    // The owner removes their own: no more deliveries, the row kept as removed, audited.
    expect(
      (await owner.client.post(`/accounts/${a}/webhooks/${mine.id}/remove`, { _csrf: csrf })).status,
    ).toBe(200);
    const removed = await t.pool.query(
      'select disabled_at from control.webhook_subscriptions where id = $1',
      [mine.id],
    );
    expect(removed.rows[0].disabled_at).not.toBeNull();
    expect(
      (
        await t.pool.query(
          `select 1 from control.audit_log where action = 'webhook.remove' and target = $1`,
          [mine.id],
        )
      ).rowCount,
    ).toBe(1);
  });

  it('given the people who accepted invitations, when their rows are read, then no TOTP secret is in clear (sealed under the current console key)', async () => {
    const { rows } = await t.pool.query<{
      totp_secret: string | null;
      totp_key_id: string;
      totp_ciphertext: Buffer;
    }>('select totp_secret, totp_key_id, totp_ciphertext from control.users where id = $1', [owner.userId]);
    expect(rows[0]!.totp_secret).toBeNull();
    expect(rows[0]!.totp_key_id).toBe('c2');
    expect(rows[0]!.totp_ciphertext.toString('latin1')).not.toContain(owner.totpSecret);
  });

  it('given a secret left in clear from before sealing, and one sealed under the older key, when the console starts (seal, rewrap), then both are sealed under the current key and still sign in', async () => {
    const clearOne = await invitedPerson(t.db, base, clock, a, 'legacy@tea.example', 'analyst');
    const oldKeyOne = await invitedPerson(t.db, base, clock, a, 'oldkey@tea.example', 'analyst');
    // As a row enrolled before the migration looks: the secret in clear, no sealed columns.
    await t.pool.query(
      `update control.users set totp_secret = $2, totp_key_id = null, totp_wrapped_key = null, totp_ciphertext = null where id = $1`,
      [clearOne.userId, clearOne.totpSecret],
    );
    // As a row sealed before the key rotation: under c1.
    const old = new ConsoleKeyring([CONSOLE_KEY_OLD]).seal(
      oldKeyOne.totpSecret,
      `console-totp/${oldKeyOne.userId}`,
    );
    await t.pool.query(
      `update control.users set totp_key_id = $2, totp_wrapped_key = $3, totp_ciphertext = $4 where id = $1`,
      [oldKeyOne.userId, old.keyId, old.wrappedKey, old.ciphertext],
    );
    // Both still sign in before the start-up pass (the clear row is read as it is; c1 is configured).
    expect((await signIn(clearOne)).second.status).toBe(303);
    const keyring = new ConsoleKeyring([CONSOLE_KEY_NEW, CONSOLE_KEY_OLD]);
    expect(await sealConsoleTotpSecrets(t.db, keyring)).toBe(1);
    expect(await sealConsoleTotpSecrets(t.db, keyring)).toBe(0);
    expect(await rewrapConsoleTotpSecrets(t.db, keyring)).toBe(1);
    const { rows } = await t.pool.query<{ id: string; totp_secret: string | null; totp_key_id: string }>(
      'select id, totp_secret, totp_key_id from control.users where id in ($1, $2) order by email',
      [clearOne.userId, oldKeyOne.userId],
    );
    expect(rows.map((x) => [x.totp_secret, x.totp_key_id])).toEqual([
      [null, 'c2'],
      [null, 'c2'],
    ]);
    expect((await signIn(clearOne)).second.status).toBe(303);
    expect((await signIn(oldKeyOne)).second.status).toBe(303);
  });

  it('given ten working keys, when one more is minted, then the limit is explained and nothing is minted', async () => {
    while (
      (await listApiKeys(t.db, a)).filter((k) => k.kind === 'ingest_live' && k.status === 'live').length < 10
    )
      await mintApiKey(t.db, a, 'ingest_live');
    const page = await owner.client.get(`/accounts/${a}/keys`);
    const r = await owner.client.post(`/accounts/${a}/keys/mint`, {
      _csrf: csrfOf(page.text),
      kind: 'ingest_live',
    });
    expect(r.status).toBe(409);
    expect(r.text).toContain('already has 10 working ingest keys');
    expect(r.text).toContain('Revoke a key you no longer use');
  });

  it('given five wrong passwords, when the right one comes, then the user is locked out (429)', async () => {
    const person = await invitedPerson(t.db, base, clock, a, 'analyst@tea.example', 'analyst');
    for (let i = 0; i < 5; i++) {
      const r = await new ConsoleClient(base).post('/sign-in', {
        email: person.email,
        password: 'wrong password!!',
        next: '/',
      });
      expect(r.status).toBe(401);
    }
    const r = await new ConsoleClient(base).post('/sign-in', {
      email: person.email,
      password: person.password,
      next: '/',
    });
    expect(r.status).toBe(429);
    expect(r.headers.get('retry-after')).toBeTruthy();
  });

  it('given an unknown address, when signing in, then the answer is the same as a wrong password', async () => {
    const r = await new ConsoleClient(base).post('/sign-in', {
      email: 'nobody@nowhere.example',
      password: 'whatever at all',
      next: '/',
    });
    expect(r.status).toBe(401);
    expect(r.text).toContain('That email address, password or code is not right.');
  });

  it('given rates and an order, when the owner changes the reporting currency, then the order is re-converted and the change audited', async () => {
    await ensureReadModelSchema(t.pool);
    await importReferenceRates(t.pool, 'sample', readFileSync(ECB_SAMPLE));
    for (const account of [a, b])
      await t.pool.query(
        `insert into read_models.orders (account_id, order_id, order_date, order_amount, product_name, first_seen_at, updated_at)
         values ($1, 'o-1', '2024-04-03T10:00:00Z', 100, 'Tea', now(), now())`,
        [account],
      );
    const orderOf = async (account: string) =>
      (
        await t.pool.query<{ reporting_currency: string; fx_status: string }>(
          `select reporting_currency, fx_status from read_models.orders where account_id = $1`,
          [account],
        )
      ).rows[0]!;
    const page = await owner.client.get(`/accounts/${a}/settings`);
    expect(page.text).toContain('Save currency');
    const r = await owner.client.post(`/accounts/${a}/settings/currency`, {
      _csrf: csrfOf(page.text),
      currency: ' eur ',
    });
    expect(r.status).toBe(303);
    expect(await readReportingCurrency(t.db as never, a)).toBe('EUR');
    expect(await orderOf(a)).toEqual({ reporting_currency: 'EUR', fx_status: 'converted' });
    // The other account's orders are left alone.
    expect((await orderOf(b)).reporting_currency).toBe('USD');
    const audit = await t.pool.query<{ detail: unknown }>(
      `select detail from control.audit_log where account_id = $1 and action = 'settings.reporting_currency'`,
      [a],
    );
    expect(audit.rows.map((x) => x.detail)).toEqual([{ from: 'USD', to: 'EUR', orders_reconverted: 1 }]);
    expect((await owner.client.get(`/accounts/${a}/audit`)).text).toContain('settings.reporting_currency');
  });

  it('given a bad currency, when the owner saves it, then the form answers with the error and nothing changes', async () => {
    const page = await owner.client.get(`/accounts/${a}/settings`);
    for (const [currency, message] of [
      ['EURO', 'is not a 3-letter currency code'],
      ['XYZ', 'no reference rates quote XYZ'],
      ['<b>', 'is not a 3-letter currency code'],
    ] as const) {
      const r = await owner.client.post(`/accounts/${a}/settings/currency`, {
        _csrf: csrfOf(page.text),
        currency,
      });
      expect(r.status, currency).toBe(400);
      expect(r.text, currency).toContain(message);
      expect(r.text).not.toContain('"<b>"');
    }
    expect(await readReportingCurrency(t.db as never, a)).toBe('EUR');
  });

  it('given a viewer, a missing token, a foreign origin or another account, when the currency is posted, then it is refused and nothing changes', async () => {
    const vPage = await viewer.client.get(`/accounts/${a}/settings`);
    expect(vPage.text).not.toContain('Save currency');
    expect(
      (
        await viewer.client.post(`/accounts/${a}/settings/currency`, {
          _csrf: csrfOf(vPage.text),
          currency: 'GBP',
        })
      ).status,
    ).toBe(403);
    const page = await owner.client.get(`/accounts/${a}/settings`);
    expect((await owner.client.post(`/accounts/${a}/settings/currency`, { currency: 'GBP' })).status).toBe(
      403,
    );
    expect(
      (
        await owner.client.post(
          `/accounts/${a}/settings/currency`,
          { _csrf: csrfOf(page.text), currency: 'GBP' },
          { origin: 'https://evil.example' },
        )
      ).status,
    ).toBe(403);
    expect(
      (
        await owner.client.post(`/accounts/${b}/settings/currency`, {
          _csrf: csrfOf(page.text),
          currency: 'GBP',
        })
      ).status,
    ).toBe(404);
    expect(await readReportingCurrency(t.db as never, a)).toBe('EUR');
    expect(await readReportingCurrency(t.db as never, b)).toBe('USD');
  });

  it('given the owner, when they save a timezone, then it is queued in the settings outbox with its audit entry; a bad name, a viewer or another account change nothing', async () => {
    const page = await owner.client.get(`/accounts/${a}/settings`);
    const csrf = csrfOf(page.text);
    const bad = await owner.client.post(`/accounts/${a}/settings/timezone`, { _csrf: csrf, timezone: 'CST' });
    expect(bad.status).toBe(400);
    expect(bad.text).toContain('is not an IANA timezone name');
    const vcsrf = csrfOf((await viewer.client.get(`/accounts/${a}/settings`)).text);
    expect(
      (
        await viewer.client.post(`/accounts/${a}/settings/timezone`, {
          _csrf: vcsrf,
          timezone: 'Europe/Rome',
        })
      ).status,
    ).toBe(403);
    expect(
      (await owner.client.post(`/accounts/${b}/settings/timezone`, { _csrf: csrf, timezone: 'Europe/Rome' }))
        .status,
    ).toBe(404);
    expect((await t.pool.query('select 1 from control.settings_outbox')).rowCount).toBe(0);
    const ok = await owner.client.post(`/accounts/${a}/settings/timezone`, {
      _csrf: csrf,
      timezone: 'Europe/Berlin',
    });
    expect(ok.status).toBe(303);
    const { rows } = await t.pool.query<{ id: string; account_id: string; store_timezone: string }>(
      'select id, account_id, store_timezone from control.settings_outbox',
    );
    expect(rows.map((r) => [r.account_id, r.store_timezone])).toEqual([[a, 'Europe/Berlin']]);
    const audit = await t.pool.query(
      `select detail from control.audit_log where action = 'settings.timezone' and target = $1`,
      [rows[0]!.id],
    );
    expect(audit.rows.map((r: { detail: unknown }) => r.detail)).toEqual([
      { from: null, to: 'Europe/Berlin' },
    ]);
    // The page says the change is on its way until the relay appended it.
    expect((await owner.client.get(`/accounts/${a}/settings`)).text).toContain('changing to Europe/Berlin');
  });

  it("given a queued timezone change, when the relay (as the gateway's role) cannot append, then it stays with its attempt counted; when it can, it is handed over once and deleted", async () => {
    // The relay runs in the gateway, as holdfast_gateway: its grants are what this proves.
    const url = new URL(t.databaseUrl);
    url.username = SERVICE_ROLES.gateway;
    url.password = '';
    const gatewayPool = createPool(url.toString(), 'test-gateway-relay', 2);
    const gdb = createDb(gatewayPool);
    try {
      await expect(relaySettingsChanges(gdb, () => Promise.reject(new Error('kafka away')))).rejects.toThrow(
        'kafka away',
      );
      const kept = await t.pool.query<{ attempts: number; last_error: string }>(
        'select attempts, last_error from control.settings_outbox',
      );
      expect(kept.rows).toEqual([{ attempts: 1, last_error: 'kafka away' }]);
      const sent: PendingSettingsChange[] = [];
      expect(await relaySettingsChanges(gdb, (c) => Promise.resolve(void sent.push(...c)))).toBe(1);
      expect(sent.map((c) => [c.accountId, c.storeTimezone])).toEqual([[a, 'Europe/Berlin']]);
      expect(sent[0]!.requestedAt.getTime()).toBe(clock.now().getTime());
      expect(await relaySettingsChanges(gdb, (c) => Promise.resolve(void sent.push(...c)))).toBe(0);
      expect((await t.pool.query('select 1 from control.settings_outbox')).rowCount).toBe(0);
    } finally {
      await gatewayPool.end();
    }
  });

  it('given recovery codes made on their page, when one signs in in place of the TOTP code, then it works once; only digests are stored', async () => {
    const person = await invitedPerson(t.db, base, clock, a, 'recovery@tea.example', 'analyst');
    const page = await person.client.get('/recovery-codes');
    expect(page.text).toContain('>0</strong> unused');
    const made = await person.client.post('/recovery-codes', { _csrf: csrfOf(page.text) });
    expect(made.status).toBe(200);
    const codes = [...made.text.matchAll(/<li><code>([A-Z2-7-]{19})<\/code><\/li>/g)].map((m) => m[1]!);
    expect(codes).toHaveLength(10);
    const stored = await t.pool.query<{ code_hash: Buffer }>(
      'select code_hash from control.recovery_codes where user_id = $1',
      [person.userId],
    );
    expect(stored.rowCount).toBe(10);
    expect(JSON.stringify(stored.rows)).not.toContain(codes[0]!);
    const withCode = async (code: string) => {
      const client = new ConsoleClient(base);
      await client.post('/sign-in', { email: person.email, password: person.password, next: '/' });
      const codePage = await client.get('/sign-in/code');
      expect(codePage.text).toContain('Use a recovery code');
      return client.post('/sign-in/recovery', {
        _csrf: csrfOf(codePage.text),
        recovery_code: code,
        next: '/',
      });
    };
    // Typed loosely (lower case, spaces): the same code.
    expect((await withCode(codes[0]!.toLowerCase().replace(/-/g, ' '))).status).toBe(303);
    expect((await withCode(codes[0]!)).status).toBe(401);
    expect((await withCode('AAAA-BBBB-CCCC-DDDD')).status).toBe(401);
    expect((await person.client.get('/recovery-codes')).text).toContain('>9</strong> unused');
    // A new set: the old codes stop working.
    const again = await person.client.get('/recovery-codes');
    await person.client.post('/recovery-codes', { _csrf: csrfOf(again.text) });
    expect((await withCode(codes[1]!)).status).toBe(401);
    const audit = await t.pool.query(
      `select action, detail from control.audit_log where actor_user_id = $1 and action in ('user.sign_in', 'user.recovery_codes') order by id`,
      [person.userId],
    );
    expect(audit.rows).toEqual([
      { action: 'user.recovery_codes', detail: { codes: 10 } },
      { action: 'user.sign_in', detail: { with: 'recovery_code' } },
      { action: 'user.recovery_codes', detail: { codes: 10 } },
    ]);
  });

  it("given the console role, when it reaches for a secret or another service's table, then PostgreSQL refuses", async () => {
    for (const table of [
      'control.provider_secrets',
      'control.webhook_secrets',
      'control.rate_counters',
      'privacy.subject_keys',
    ])
      await expect(consolePool.query(`select * from ${table} limit 1`), table).rejects.toThrow(
        /permission denied/,
      );
    await expect(
      consolePool.query(`select secret from control.webhook_subscriptions limit 1`),
    ).rejects.toThrow(/permission denied/);
    await expect(consolePool.query(`update control.api_keys set key_hash = key_hash`)).rejects.toThrow(
      /permission denied/,
    );
    // Of the orders, it reads and writes only what a currency change re-converts.
    for (const statement of [
      'select email from read_models.orders limit 1',
      'select order_amount from read_models.orders limit 1',
      'update read_models.orders set order_amount = order_amount',
      "insert into fx.rates (currency, rate_date, per_eur, import_id) values ('ZZZ', now(), 1, 1)",
    ])
      await expect(consolePool.query(statement), statement).rejects.toThrow(/permission denied/);
  });

  it('given everything above, when the log lines are read, then no email address or key is in them', () => {
    const all = lines.join('\n');
    expect(lines.length).toBeGreaterThan(20);
    expect(all).not.toMatch(/@tea\.example|@other\.example|tk_live_|whsec_/);
  });
});
