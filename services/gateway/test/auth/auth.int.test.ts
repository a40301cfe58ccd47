import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import {
  connectTile,
  createAccount,
  disconnectTile,
  mintApiKey,
  revokeApiKey,
  rotateApiKey,
} from '@holdfast/control-plane';
import { createTestEnv, type TestEnv, until } from '@holdfast/testing';
import {
  call,
  ManualClock,
  newAccount,
  startGateway,
  type AccountFixture,
  type TestGateway,
} from '@holdfast/testing/services';
import { AUTH_DETAIL } from '../../src/auth/resolve-principal.js';

let t: TestEnv;
let gw: TestGateway;
let a: AccountFixture;
let b: AccountFixture;
let tile: { accountId: string; token: string };
let ipSeq = 0;
// Each test fails authentication from its own address, so the per-IP limit of one does not leak into another.
const nextIp = () => `10.0.0.${++ipSeq}`;
const clock = new ManualClock(new Date('2030-01-01T00:00:05Z'));

const health = (o: Parameters<typeof call>[3] & { query?: string } = {}) =>
  call(gw.url, 'GET', `/ingest/health${o.query ?? ''}`, { ip: nextIp(), ...o });

beforeAll(async () => {
  t = await createTestEnv('gw-auth');
  gw = await startGateway(t, { clock, config: { lastUsedFlushMs: 100 } });
  a = await newAccount(t);
  b = await newAccount(t);
  const { id } = await createAccount(t.db, { name: 'Legacy' });
  tile = { accountId: id, token: (await connectTile(t.db, id, 'custom_integration')).token };
});

afterAll(async () => {
  await gw?.close();
  await t?.close();
});

describe('ingest key (Authorization: Bearer)', () => {
  it('authenticates a tk_live_ key, and a tk_test_ key of a sandbox account', async () => {
    const r = await health({ key: a.key });
    expect(r.status).toBe(200);
    expect(r.json.account_id).toBe(a.accountId);
    const sandbox = await newAccount(t, { sandbox: true });
    expect(sandbox.key.startsWith('tk_test_')).toBe(true);
    expect((await health({ key: sandbox.key })).json.account_id).toBe(sandbox.accountId);
  });

  it.each([
    ['no credentials at all', {}, AUTH_DETAIL.missing],
    ['an unknown key', { key: 'tk_live_doesnotexist' }, AUTH_DETAIL.invalidKey],
    ['a token of no known kind', { key: 'hello' }, AUTH_DETAIL.invalidKey],
    ['another scheme', { headers: { authorization: 'Basic dXNlcjpwYXNz' } }, AUTH_DETAIL.malformed],
  ])('401 for %s', async (_what, o, detail) => {
    const r = await health(o);
    expect(r.status).toBe(401);
    expect(r.json).toEqual({ detail });
  });

  it('401 for a key in the query string, even next to a valid Authorization header', async () => {
    for (const query of [
      `?token=${a.key}`,
      `?api_key=${a.key}`,
      '?key=anything',
      `?account_id=${a.accountId}&token=${a.key}`,
    ]) {
      const r = await health({ key: a.key, query });
      expect(r.status).toBe(401);
      expect(r.json).toEqual({ detail: AUTH_DETAIL.keyInQuery });
    }
  });

  it('401 for an sk_live_ outbound key: it never authorizes ingest', async () => {
    const sk = await mintApiKey(t.db, a.accountId, 'outbound');
    const r = await health({ key: sk.key });
    expect(r.status).toBe(401);
    expect(r.json).toEqual({ detail: AUTH_DETAIL.outboundKey });
  });

  it('X-Service-Account-Id is optional with a key and must match its account', async () => {
    expect(
      (await health({ key: a.key, headers: { 'x-service-account-id': a.accountId.toUpperCase() } })).status,
    ).toBe(200);
    for (const header of [b.accountId, 'not-a-uuid', '']) {
      const r = await health({ key: a.key, headers: { 'x-service-account-id': header } });
      expect(r.status).toBe(401);
      expect(r.json).toEqual({ detail: AUTH_DETAIL.accountMismatch });
    }
  });

  it('refuses a revoked key within a second, although it was cached', async () => {
    const k = await mintApiKey(t.db, a.accountId, 'ingest_live');
    expect((await health({ key: k.key })).status).toBe(200);
    expect((await health({ key: k.key })).status).toBe(200);
    await revokeApiKey(t.db, k.id);
    const revokedAt = Date.now();
    const r = await until(
      () => health({ key: k.key }),
      (x) => x.status === 401,
      1000,
    );
    expect(Date.now() - revokedAt).toBeLessThan(1000);
    expect(r.json).toEqual({ detail: AUTH_DETAIL.revokedKey });
  });

  it('keeps a rotated key during its grace window, then refuses it', async () => {
    const k = await mintApiKey(t.db, a.accountId, 'ingest_live');
    const rotated = await rotateApiKey(t.db, k.id, 60, clock.now());
    expect((await health({ key: k.key })).status).toBe(200);
    expect((await health({ key: rotated.key })).status).toBe(200);
    clock.advance(61_000);
    const r = await health({ key: k.key });
    expect(r.status).toBe(401);
    expect(r.json).toEqual({ detail: AUTH_DETAIL.expiredKey });
    expect((await health({ key: rotated.key })).status).toBe(200);
  });

  it('writes last_used_at in the background, for the keys used only', async () => {
    const used = await mintApiKey(t.db, b.accountId, 'ingest_live');
    const idle = await mintApiKey(t.db, b.accountId, 'ingest_live');
    await health({ key: used.key });
    const row = (id: string) =>
      t.db
        .selectFrom('control.api_keys')
        .select('last_used_at')
        .where('id', '=', id)
        .executeTakeFirstOrThrow();
    await until(
      () => row(used.id),
      (r) => r.last_used_at !== null,
      5000,
    );
    expect((await row(idle.id)).last_used_at).toBeNull();
  });
});

describe('legacy tile token', () => {
  it('authenticates as Bearer <tile token> with X-Service-Account-Id, or as query account_id and token', async () => {
    const viaHeader = await health({ key: tile.token, headers: { 'x-service-account-id': tile.accountId } });
    expect(viaHeader.status).toBe(200);
    expect(viaHeader.json.account_id).toBe(tile.accountId);
    const viaQuery = await health({ query: `?account_id=${tile.accountId}&token=${tile.token}` });
    expect(viaQuery.status).toBe(200);
    expect(viaQuery.json.account_id).toBe(tile.accountId);
  });

  it.each([
    ['400 without an account id', () => ({ key: tile.token }), 400, AUTH_DETAIL.accountIdMissing],
    [
      '400 without an account id (query)',
      () => ({ query: `?token=${tile.token}` }),
      400,
      AUTH_DETAIL.accountIdMissing,
    ],
    [
      '400 for a non-UUID account id',
      () => ({ query: `?account_id=42&token=${tile.token}` }),
      400,
      AUTH_DETAIL.accountIdNotUuid,
    ],
    [
      '404 when the account has no custom integration',
      () => ({ query: `?account_id=${a.accountId}&token=${tile.token}` }),
      404,
      AUTH_DETAIL.noCustomIntegration,
    ],
    [
      '401 for a wrong token',
      () => ({ query: `?account_id=${tile.accountId}&token=tile_wrong` }),
      401,
      AUTH_DETAIL.invalidTileToken,
    ],
    [
      '401 for a missing token',
      () => ({ query: `?account_id=${tile.accountId}` }),
      401,
      AUTH_DETAIL.invalidTileToken,
    ],
  ] as const)('%s', async (_what, o, status, detail) => {
    const r = await health(o());
    expect(r.status).toBe(status);
    expect(r.json).toEqual({ detail });
  });

  it('404 once the custom integration is disconnected', async () => {
    const { id } = await createAccount(t.db, { name: 'Gone' });
    const { token } = await connectTile(t.db, id, 'custom_integration');
    expect((await health({ query: `?account_id=${id}&token=${token}` })).status).toBe(200);
    await disconnectTile(t.db, id, 'custom_integration');
    await until(
      () => health({ query: `?account_id=${id}&token=${token}` }),
      (r) => r.status === 404,
      1000,
    );
  });
});

describe('failed authentications per IP', () => {
  it('answers the 31st failure within a minute with 429 and Retry-After instead of 401 or 404', async () => {
    clock.set(new Date('2030-01-01T00:10:20Z'));
    const ip = '192.0.2.77';
    for (let i = 0; i < 29; i++) expect((await health({ ip, key: 'tk_live_nope' })).status).toBe(401);
    expect((await health({ ip, query: `?account_id=${a.accountId}&token=tile_x` })).status).toBe(404);
    const limited = await health({ ip, key: 'tk_live_nope' });
    expect(limited.status).toBe(429);
    expect(limited.headers.get('retry-after')).toBe('40');
    expect(limited.json).toEqual({ detail: 'Rate limit exceeded, try again in about 40 seconds' });
    const notFound = await health({ ip, query: `?account_id=${a.accountId}&token=tile_x` });
    expect(notFound.status).toBe(429);
    // Over the limit the address is refused before any key is looked up, a valid key included;
    // another address is not affected.
    expect((await health({ ip, key: a.key })).status).toBe(429);
    expect((await health({ key: 'tk_live_nope' })).status).toBe(401);
    // The next minute starts a new window.
    clock.advance(40_000);
    expect((await health({ ip, key: 'tk_live_nope' })).status).toBe(401);
  });
});
