import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { connectTile, createAccount, disconnectTile, listTiles, mintApiKey } from '@holdfast/control-plane';
import { CUSTOM_API_NO_IDENTITY_DETAIL, DUPLICATE_DIFFERS_WARNING } from '@holdfast/domain';
import type { Appender } from '@holdfast/kafka';
import type { RunningProjector } from '@holdfast/projections';
import { createTestEnv, type TestEnv } from '@holdfast/testing';
import { AUTH_DETAIL } from '../../src/auth/resolve-principal.js';
import {
  call,
  ManualClock,
  newAccount,
  runProjector,
  startGateway,
  type TestGateway,
} from '@holdfast/testing/services';

const UUID = /^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$/;

let t: TestEnv;
let projector: RunningProjector;
let stack: TestGateway;

/** An account with an ingest key and a connected custom integration tile. */
async function connectedAccount() {
  const a = await newAccount(t);
  const { token } = await connectTile(t.db, a.accountId, 'custom_integration');
  return { ...a, tileToken: token };
}

const post = (body: unknown, o: { key?: string; query?: string; ip?: string; base?: string } = {}) =>
  call(o.base ?? stack.url, 'POST', `/webhooks/custom-api${o.query ?? ''}`, { key: o.key, body, ip: o.ip });

const metricsText = async () => (await fetch(`${stack.url}/metrics`)).text();
/** The value of the series of `name` whose labels include `label` (0 when absent). */
const counterValue = (text: string, name: string, label: string) =>
  Number(
    text
      .split('\n')
      .find((l) => l.startsWith(`${name}{`) && l.includes(label))
      ?.split(' ')
      .at(-1) ?? 0,
  );

beforeAll(async () => {
  t = await createTestEnv('customapi');
  projector = await runProjector(t);
  stack = await startGateway(t);
});

afterAll(async () => {
  await stack?.close();
  await projector?.stop();
  await t?.close();
});

describe('POST /webhooks/custom-api with the ingest key', () => {
  it('given a new customer, when the event is posted, then the projected identity is answered and the tile leaves "awaiting setup"', async () => {
    const a = await connectedAccount();
    expect((await listTiles(t.db, a.accountId))[0]!.first_call_at).toBeNull();
    const res = await post(
      { external_id: 'C1', email: 'ann@example.com', event_type: 'signup' },
      { key: a.key },
    );
    expect(res.status).toBe(200);
    expect(res.json).toEqual({
      received: true,
      duplicate: false,
      customer_id: expect.stringMatching(UUID),
      link_method: 'created',
      is_new: true,
    });
    expect((await listTiles(t.db, a.accountId))[0]!.first_call_at).toBeInstanceOf(Date);
    const { rows } = await t.pool.query(
      `select customer_id, external_id, email from read_models.customers where account_id = $1`,
      [a.accountId],
    );
    expect(rows).toEqual([
      { customer_id: res.json.customer_id, external_id: 'C1', email: 'ann@example.com' },
    ]);
  });

  it('given the same event_type and external id (or its alias customer_id), when posted again, then it is a duplicate', async () => {
    const a = await connectedAccount();
    const first = await post(
      { external_id: 'C7', event_type: 'consent', consent: { sms: true } },
      { key: a.key },
    );
    expect(first.json).toMatchObject({ duplicate: false, link_method: 'created' });
    const again = await post(
      { customer_id: 'C7', event_type: 'consent', consent: { sms: false } },
      { key: a.key },
    );
    expect(again.status).toBe(200);
    // Its content differs (an sms withdrawal): still the spec's duplicate, plus a warning naming the
    // safe ways, and the stored consent is untouched.
    expect(again.json).toEqual({ received: true, duplicate: true, warning: DUPLICATE_DIFFERS_WARNING });
    const { rows } = await t.pool.query(
      `select consent_sms from read_models.customers where account_id = $1 and customer_id = $2`,
      [a.accountId, first.json.customer_id],
    );
    expect(rows).toEqual([{ consent_sms: true }]);
    const other = await post({ customer_id: 'C7', event_type: 'profile' }, { key: a.key });
    expect(other.json).toMatchObject({ duplicate: false, link_method: 'provider_id', is_new: false });
    expect(other.json.customer_id).toBe(first.json.customer_id);
  });

  it('given an applied event, when the same content is resent, then it is a plain duplicate; when changed, the warning is counted in /metrics', async () => {
    const a = await connectedAccount();
    const body = { external_id: 'C8', event_type: 'consent', consent: { sms: true } };
    expect((await post(body, { key: a.key })).json).toMatchObject({ duplicate: false });
    const differs = async () =>
      counterValue(await metricsText(), 'holdfast_custom_api_duplicates_total', 'content="differs"');
    const before = await differs();
    const same = await post({ ...body, unused: 'x' }, { key: a.key });
    expect(same.json).toEqual({ received: true, duplicate: true });
    expect(await differs()).toBe(before);
    const changed = await post({ ...body, consent: { sms: false } }, { key: a.key });
    expect(changed.json).toEqual({ received: true, duplicate: true, warning: DUPLICATE_DIFFERS_WARNING });
    expect(await differs()).toBe(before + 1);
  });

  it('given no external id, when the same body is posted in another key order, then the body hash deduplicates it', async () => {
    const a = await connectedAccount();
    const first = await post(
      { email: 'bo@example.com', consent: { sms: true, bounced: false } },
      { key: a.key },
    );
    expect(first.json).toMatchObject({ duplicate: false, link_method: 'created', is_new: true });
    const same = await post(
      { consent: { bounced: false, sms: true }, email: 'bo@example.com' },
      { key: a.key },
    );
    expect(same.json).toEqual({ received: true, duplicate: true });
    const changed = await post({ email: 'BO@example.com', consent: { sms: false } }, { key: a.key });
    expect(changed.json).toEqual({
      received: true,
      duplicate: false,
      customer_id: first.json.customer_id,
      link_method: 'email',
      is_new: false,
    });
  });

  it('given a phone of a known customer, when posted, then it links by phone', async () => {
    const a = await connectedAccount();
    const first = await post({ phone: '415 555 0132', event_type: 'a' }, { key: a.key });
    const second = await post({ phone: '+1 (415) 555-0132', event_type: 'b' }, { key: a.key });
    expect(second.json).toMatchObject({
      link_method: 'phone',
      is_new: false,
      customer_id: first.json.customer_id,
    });
  });

  it('given a body without email, phone or external id, when posted, then 400 and nothing is stored', async () => {
    const a = await connectedAccount();
    const res = await post({ name: 'Ann', phone: '12' }, { key: a.key });
    expect(res.status).toBe(400);
    expect(res.json).toEqual({ detail: CUSTOM_API_NO_IDENTITY_DETAIL });
    expect((await post([{ email: 'a@b.co' }], { key: a.key })).status).toBe(400);
    expect((await listTiles(t.db, a.accountId))[0]!.first_call_at).toBeNull();
  });

  it('given no connected custom integration tile, when the key posts, then 404', async () => {
    const never = await newAccount(t);
    const res = await post({ email: 'a@b.co' }, { key: never.key });
    expect(res.status).toBe(404);
    expect(res.json).toEqual({ detail: AUTH_DETAIL.noCustomIntegration });
    const gone = await connectedAccount();
    await disconnectTile(t.db, gone.accountId, 'custom_integration');
    expect((await post({ email: 'a@b.co' }, { key: gone.key })).status).toBe(404);
  });

  it('given ingest calls only, when the tiles are listed, then first_call_at is still unset', async () => {
    const a = await connectedAccount();
    const res = await call(stack.url, 'GET', '/ingest/health', { key: a.key });
    expect(res.status).toBe(200);
    expect((await listTiles(t.db, a.accountId))[0]!.first_call_at).toBeNull();
  });
});

describe('POST /webhooks/custom-api with the legacy tile token', () => {
  it('given query account_id and token, when posted, then it is processed like the key', async () => {
    const a = await connectedAccount();
    const res = await post(
      { external_id: 'L1' },
      { query: `?account_id=${a.accountId}&token=${a.tileToken}` },
    );
    expect(res.status).toBe(200);
    expect(res.json).toMatchObject({
      received: true,
      duplicate: false,
      link_method: 'created',
      is_new: true,
    });
  });

  it.each([
    ['a wrong token', 401, (a: { accountId: string }) => `?account_id=${a.accountId}&token=tile_wrong`],
    ['a non-UUID account id', 400, () => `?account_id=42&token=tile_x`],
    ['a key in the query string', 401, (a: { key: string }) => `?token=${a.key}`],
  ])('given %s, when posted, then %i', async (_label, status, query) => {
    const a = await connectedAccount();
    expect((await post({ email: 'a@b.co' }, { query: query(a) })).status).toBe(status);
  });

  it('given an account whose tile was never connected, when posted with a token, then 404', async () => {
    const { id } = await createAccount(t.db, { name: 'No tile' });
    const res = await post({ email: 'a@b.co' }, { query: `?account_id=${id}&token=tile_x` });
    expect(res.status).toBe(404);
  });
});

describe('POST /webhooks/custom-api limits', () => {
  // A clock held inside one minute, so the counters' window cannot roll over mid-test.
  const clock = new ManualClock(new Date('2030-01-01T00:00:30Z'));
  let limited: TestGateway;
  beforeAll(async () => (limited = await startGateway(t, { clock })));
  afterAll(() => limited?.close());

  it('given 30 failed authentications from one IP, when it fails again, then 429 with Retry-After', async () => {
    const ip = '198.51.100.30';
    const o = { key: 'tk_live_nope', ip, base: limited.url };
    for (let i = 0; i < 30; i++) expect((await post({ email: 'a@b.co' }, o)).status).toBe(401);
    const res = await post({ email: 'a@b.co' }, o);
    expect(res.status).toBe(429);
    expect(res.headers.get('retry-after')).toBe('30');
    expect(res.json.detail).toBe('Rate limit exceeded, try again in about 30 seconds');
  });

  it('given 600 calls of one key this minute (counted in control.rate_counters), when it calls again, then 429', async () => {
    const a = await connectedAccount();
    await t.pool.query(
      `insert into control.rate_counters (bucket, window_start, count) values ($1, $2, 600)`,
      [`req:key:${a.keyId}`, new Date('2030-01-01T00:00:00Z')],
    );
    const res = await post({ email: 'a@b.co' }, { key: a.key, base: limited.url });
    expect(res.status).toBe(429);
    expect(res.headers.get('retry-after')).toBe('30');
  });
});

describe('POST /webhooks/custom-api failures and retries', () => {
  it('given an append that fails, when the client retries, then the retry is processed (not a duplicate)', async () => {
    const failing: Appender = {
      append: () => Promise.reject(new Error('broker down')),
      close: () => Promise.resolve(),
    };
    // The webhook's one record goes through the single-partition appender: both fail.
    const broken = await startGateway(t, { appender: failing, pixelAppender: failing });
    try {
      const a = await connectedAccount();
      const body = { external_id: 'R1', event_type: 'signup' };
      expect((await post(body, { key: a.key, base: broken.url })).status).toBe(500);
      const retry = await post(body, { key: a.key });
      expect(retry.json).toMatchObject({ duplicate: false, link_method: 'created', is_new: true });
    } finally {
      await broken.close();
    }
  });

  it('given a projector that is behind, when posted, then 503 with Retry-After, and once applied a retry is a duplicate', async () => {
    const lagging = await createTestEnv('customapilag');
    const gw = await startGateway(lagging);
    let late: RunningProjector | undefined;
    try {
      const a = await newAccount(lagging);
      const k = await mintApiKey(lagging.db, a.accountId, 'ingest_live');
      await connectTile(lagging.db, a.accountId, 'custom_integration');
      const body = { external_id: 'S1' };
      const res = await post(body, { key: k.key, base: gw.url });
      expect(res.status).toBe(503);
      expect(res.headers.get('retry-after')).toBe('2');
      expect(res.json.detail).toEqual(expect.any(String));
      late = await runProjector(lagging);
      let retry = await post(body, { key: k.key, base: gw.url });
      for (let i = 0; i < 100 && retry.status === 503; i++)
        retry = await post(body, { key: k.key, base: gw.url });
      expect(retry.json).toEqual({ received: true, duplicate: true });
      const { rows } = await lagging.pool.query(`select count(*)::int as n from read_models.customer_events`);
      expect(rows[0].n).toBe(1);
    } finally {
      await gw.close();
      await late?.stop();
      await lagging.close();
    }
  });
});
