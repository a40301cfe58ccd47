import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { connectTile, createAccount, disconnectTile } from '@holdfast/control-plane';
import { ZERO_PARTY_NO_IDENTITY_DETAIL } from '@holdfast/domain';
import type { RunningProjector } from '@holdfast/projections';
import { createTestEnv, type TestEnv, until } from '@holdfast/testing';
import {
  call,
  ManualClock,
  newAccount,
  runProjector,
  startGateway,
  type TestGateway,
} from '@holdfast/testing/services';
import { AUTH_DETAIL } from '../../src/auth/resolve-principal.js';
import { ZERO_PARTY_AUTH_DETAIL } from '../../src/webhooks/zero-party-auth.js';

let t: TestEnv;
let projector: RunningProjector;
let stack: TestGateway;

/** An account with an ingest key and a connected zero-party tile. */
async function zeroPartyAccount() {
  const a = await newAccount(t);
  const { token } = await connectTile(t.db, a.accountId, 'zero_party');
  return { ...a, token, query: `?account_id=${a.accountId}&token=${token}` };
}

const post = (query: string, body: unknown, o: { key?: string; ip?: string; base?: string } = {}) =>
  call(o.base ?? stack.url, 'POST', `/webhooks/zero-party${query}`, { body, key: o.key, ip: o.ip });

async function submissions(accountId: string): Promise<{ customer_id: string; [column: string]: unknown }[]> {
  const { rows } = await t.pool.query<{ customer_id: string; [column: string]: unknown }>(
    `select s.dedup_key, s.customer_id, s.email, s.external_customer_id, s.interests, s.attributes,
            s.source_label, s.quiz_version, s.completed_at, c.external_id as customer_external_id
       from read_models.zero_party_submissions s
       join read_models.customers c on c.account_id = s.account_id and c.customer_id = s.customer_id
      where s.account_id = $1 order by s.received_at`,
    [accountId],
  );
  return rows;
}

beforeAll(async () => {
  t = await createTestEnv('zeroparty');
  projector = await runProjector(t);
  stack = await startGateway(t);
});

afterAll(async () => {
  await stack?.close();
  await projector?.stop();
  await t?.close();
});

describe('POST /webhooks/zero-party', () => {
  it('given the tile token in the query, when a quiz is posted, then it is stored for analytics and linked to the customer', async () => {
    const a = await zeroPartyAccount();
    const res = await post(a.query, {
      email: 'Ann@Example.com',
      customer_id: 'C1',
      interests: ['tea', 'coffee'],
      attributes: { roast: 'dark' },
      source_label: 'quiz',
      quiz_version: 3,
      completed_at: '2024-05-01T10:00:00+02:00',
    });
    expect(res.status).toBe(200);
    expect(res.json).toEqual({ received: true, duplicate: false });
    const rows = await until(
      () => submissions(a.accountId),
      (r) => r.length === 1,
    );
    expect(rows[0]).toMatchObject({
      email: 'ann@example.com',
      external_customer_id: 'C1',
      customer_external_id: 'C1',
      interests: ['tea', 'coffee'],
      attributes: { roast: 'dark' },
      source_label: 'quiz',
      quiz_version: '3',
      completed_at: new Date('2024-05-01T08:00:00Z'),
    });
  });

  it('given the same content again (other key order, email case), when posted after it was applied, then it is a duplicate; changed answers are new', async () => {
    const a = await zeroPartyAccount();
    const body = { external_id: 'Q1', email: 'q@example.com', attributes: { size: 'M', fit: 'slim' } };
    expect((await post(a.query, body)).json).toEqual({ received: true, duplicate: false });
    await until(
      () => submissions(a.accountId),
      (r) => r.length === 1,
    );
    const same = await post(a.query, {
      attributes: { fit: 'slim', size: 'M' },
      email: 'Q@EXAMPLE.COM',
      external_id: 'Q1',
    });
    expect(same.json).toEqual({ received: true, duplicate: true });
    const changed = await post(a.query, { ...body, attributes: { size: 'L', fit: 'slim' } });
    expect(changed.json).toEqual({ received: true, duplicate: false });
    const rows = await until(
      () => submissions(a.accountId),
      (r) => r.length === 2,
    );
    expect(new Set(rows.map((r) => r.customer_id)).size).toBe(1);
  });

  it.each([[{ phone: '4155550132', interests: ['tea'] }], [{ email: '  ', name: 'Ann' }]])(
    'given %j (no email, no external id), when posted, then 400',
    async (body) => {
      const a = await zeroPartyAccount();
      const res = await post(a.query, body);
      expect(res.status).toBe(400);
      expect(res.json).toEqual({ detail: ZERO_PARTY_NO_IDENTITY_DETAIL });
    },
  );

  it('given only the ingest key as Bearer, when posted, then 401 (query string only)', async () => {
    const a = await zeroPartyAccount();
    const res = await post('', { email: 'a@b.co' }, { key: a.key });
    expect(res.status).toBe(401);
    expect(res.json).toEqual({ detail: ZERO_PARTY_AUTH_DETAIL.headerNotAccepted });
  });

  it('given the custom integration token or a wrong token, when posted, then 401', async () => {
    const a = await zeroPartyAccount();
    const { token } = await connectTile(t.db, a.accountId, 'custom_integration');
    for (const wrong of [token, 'zp_wrong']) {
      const res = await post(`?account_id=${a.accountId}&token=${wrong}`, { email: 'a@b.co' });
      expect(res.status).toBe(401);
      expect(res.json).toEqual({ detail: ZERO_PARTY_AUTH_DETAIL.invalidToken });
    }
    // An ingest key in the query string is refused as such (it must never travel there).
    const keyed = await post(`?account_id=${a.accountId}&token=${a.key}`, { email: 'a@b.co' });
    expect(keyed.status).toBe(401);
    expect(keyed.json).toEqual({ detail: AUTH_DETAIL.keyInQuery });
  });

  it('given a missing or non-UUID account id, when posted, then 400', async () => {
    expect((await post('?token=zp_x', { email: 'a@b.co' })).json).toEqual({
      detail: ZERO_PARTY_AUTH_DETAIL.accountIdMissing,
    });
    expect((await post('?account_id=42&token=zp_x', { email: 'a@b.co' })).status).toBe(400);
  });

  it('given no connected zero-party tile, when posted, then 404', async () => {
    const { id } = await createAccount(t.db, { name: 'No tile' });
    const res = await post(`?account_id=${id}&token=zp_x`, { email: 'a@b.co' });
    expect(res.status).toBe(404);
    expect(res.json).toEqual({ detail: ZERO_PARTY_AUTH_DETAIL.notConnected });
    const a = await zeroPartyAccount();
    await disconnectTile(t.db, a.accountId, 'zero_party');
    expect((await post(a.query, { email: 'a@b.co' })).status).toBe(404);
  });
});

describe('POST /webhooks/zero-party limits', () => {
  const clock = new ManualClock(new Date('2030-01-01T00:00:45Z'));
  let limited: TestGateway;
  beforeAll(async () => (limited = await startGateway(t, { clock })));
  afterAll(() => limited?.close());

  it('given 30 failed authentications from one IP, when it fails again, then 429 with Retry-After', async () => {
    const { id } = await createAccount(t.db, { name: 'Prober' });
    const o = { ip: '198.51.100.77', base: limited.url };
    for (let i = 0; i < 30; i++) expect((await post(`?account_id=${id}&token=zp_x`, {}, o)).status).toBe(404);
    const res = await post(`?account_id=${id}&token=zp_x`, {}, o);
    expect(res.status).toBe(429);
    expect(res.headers.get('retry-after')).toBe('15');
  });

  it('given 600 calls for the account this minute, when it calls again, then 429', async () => {
    const a = await zeroPartyAccount();
    await t.pool.query(
      `insert into control.rate_counters (bucket, window_start, count) values ($1, $2, 600)`,
      [`req:zp:${a.accountId}`, new Date('2030-01-01T00:00:00Z')],
    );
    const res = await post(a.query, { email: 'a@b.co' }, { base: limited.url });
    expect(res.status).toBe(429);
    expect(res.headers.get('retry-after')).toBe('15');
  });
});
