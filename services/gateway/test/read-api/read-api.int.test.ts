import { randomUUID } from 'node:crypto';
import { Ajv2020 } from 'ajv/dist/2020.js';
import type { Kysely } from 'kysely';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createHoldfastClient } from '@holdfast/client';
import { mintApiKey, setReadWithIngestKey } from '@holdfast/control-plane';
import { migrateAnalytics, migrateCampaigns } from '@holdfast/migrations';
import { createTestEnv, type TestEnv, until } from '@holdfast/testing';
import { AUTH_DETAIL } from '../../src/auth/resolve-principal.js';
import { buildOpenApiDocument } from '../../src/openapi/document.js';
import {
  call,
  newAccount,
  orderRow,
  startGateway,
  type AccountFixture,
  type Answer,
  type TestGateway,
} from '@holdfast/testing/services';
import { READ_DETAIL } from '../../src/read-api/read-api-router.js';

let t: TestEnv;
let gw: TestGateway;
/** A: the seeded shop; B: another account holding the same external ids with other data. */
let a: AccountFixture & { readKey: string };
let b: AccountFixture & { readKey: string };
const asOf = new Date('2026-11-20T02:00:00Z');

const doc = buildOpenApiDocument();
const ajv = new Ajv2020({ strict: false, validateFormats: false });
ajv.addSchema({ $id: 'doc', components: doc.components });

/** Asserts `answer` is 200 and its body valid against components.schemas[`schema`] of /v1/openapi.json. */
function expectValid(answer: Answer, schema: string): void {
  expect(answer.status, answer.text).toBe(200);
  const validate =
    ajv.getSchema(`doc#/components/schemas/${schema}`) ??
    ajv.compile({ $ref: `doc#/components/schemas/${schema}` });
  expect(validate(answer.json), JSON.stringify(validate.errors)).toBe(true);
}

/** The `loc` of each entry of a 422 body. */
const locs = (r: Answer): unknown[] => (r.json as { detail: { loc: unknown[] }[] }).detail.map((d) => d.loc);
const externalIds = (members: unknown): string[] =>
  (members as { external_id: string }[]).map((m) => m.external_id);

const get = (key: string, path: string, headers?: Record<string, string>) =>
  call(gw.url, 'GET', path, { key, headers });

async function customer(
  accountId: string,
  externalId: string | null,
  o: { updatedAt?: Date; id?: string } = {},
) {
  const id = o.id ?? randomUUID();
  await t.pool.query(
    `insert into read_models.customers (account_id, customer_id, external_id, email, address_city, address_country,
       consent_marketing_email, subscription_status, created_at, updated_at)
     values ($1, $2, $3, $4, 'Austin', 'US', true, 'active', $5, $5)`,
    [
      accountId,
      id,
      externalId,
      `${id.slice(0, 8)}@example.com`,
      o.updatedAt ?? new Date('2026-11-01T00:00:00Z'),
    ],
  );
  return id;
}

async function score(
  accountId: string,
  customerId: string,
  externalId: string | null,
  s: { state: string; risk: number; holdout?: boolean; ltv?: number },
) {
  await t.pool.query(
    `insert into analytics.customer_scores (account_id, customer_id, external_id, churn_risk, lifecycle_state, p_alive,
       predicted_next_purchase_at, expected_purchases, expected_spend, realised_revenue, predicted_value,
       lifetime_value, is_holdout, model, model_params, horizon_days, as_of)
     values ($1, $2, $3, $4, $5, $6, null, 1.5, 50, 100, 50, $7, $8, 'bgnbd-gg', '{}', 365, $9)`,
    [accountId, customerId, externalId, s.risk, s.state, 1 - s.risk, s.ltv ?? 100, s.holdout ?? false, asOf],
  );
}

/** A's customers by external id: E1..E6 scored (E2 in the holdout), E7 unscored. */
const ids: Record<string, string> = {};

beforeAll(async () => {
  t = await createTestEnv('gw-read-api');
  gw = await startGateway(t);
  await migrateAnalytics(t.db as unknown as Kysely<unknown>);
  await migrateCampaigns(t.db as unknown as Kysely<unknown>);
  const withReadKey = async () => {
    const acc = await newAccount(t);
    return { ...acc, readKey: (await mintApiKey(t.db, acc.accountId, 'read_live')).key };
  };
  [a, b] = await Promise.all([withReadKey(), withReadKey()]);
  const seed: [string, string, number, boolean][] = [
    ['E1', 'Stable', 0.1, false],
    ['E2', 'Lapsed', 0.9, true],
    ['E3', 'Lapsed', 0.8, false],
    ['E4', 'Overdue', 0.6, false],
    ['E5', 'Slowing', 0.4, false],
    ['E6', 'Stable', 0.05, false],
  ];
  for (const [ext, state, risk, holdout] of seed) {
    ids[ext] = await customer(a.accountId, ext);
    await score(a.accountId, ids[ext], ext, { state, risk, holdout });
  }
  ids.E7 = await customer(a.accountId, 'E7');
  // B has its own E1 (Stable) and E3 (Lapsed, holdout): same external ids, other customers.
  for (const ext of ['E1', 'E3']) {
    const id = await customer(b.accountId, ext);
    await score(b.accountId, id, ext, {
      state: ext === 'E1' ? 'Stable' : 'Lapsed',
      risk: 0.3,
      holdout: ext === 'E3',
    });
  }
  await t.pool.query(
    `insert into analytics.lift_reports (account_id, campaign_type, period_start, period_end, treated_customers,
       holdout_customers, treated_revenue_per_customer, holdout_revenue_per_customer, lift, ci_low, ci_high, p_value,
       significant, incremental_revenue, billable_revenue, mde, computed_at, test, p_value_greater)
     values ($1, 'win_back', '2026-10-01Z', '2026-11-01Z', 400, 20, 12, 10, 0.2, 0.05, 0.35, 0.01, true, 800, 800, 0.1,
             '2026-11-02Z', 'welch', 0.01)`,
    [a.accountId],
  );
}, 60_000);

afterAll(async () => {
  await gw?.close();
  await t?.close();
});

describe('GET /v1/customers/{external_id}', () => {
  it('answers the profile and scores of the key’s account, valid against the OpenAPI document', async () => {
    const r = await get(a.readKey, '/v1/customers/E3');
    expectValid(r, 'Customer');
    expect(r.json).toMatchObject({
      customer_id: ids.E3,
      external_id: 'E3',
      address: { city: 'Austin', country: 'US', street: null },
      consent: { marketing_email: true, sms: false, suppressed: false, bounced: false },
      subscription: { status: 'active', started_at: null },
      scores: {
        churn_risk: 0.8,
        p_alive: expect.closeTo(0.2, 10),
        lifecycle_state: 'Lapsed',
        expected_purchases: { value: 1.5, horizon_days: 365 },
        lifetime_value: { amount: 100, currency: 'USD' },
        scored_at: asOf.toISOString(),
        model: 'bgnbd-gg',
        intervals: null,
      },
    });
    expect(r.headers.get('ratelimit-policy')).toBe('"read";q=1200;w=60');
    expect(r.headers.get('ratelimit')).toMatch(/^"read";r=\d+;t=\d+$/);
  });

  it('answers the 90% intervals stored with the scores, in the reporting currency', async () => {
    const set = (v: number | null) =>
      t.pool.query(
        `update analytics.customer_scores set expected_purchases_low = $2, expected_purchases_high = $3,
           lifetime_value_low = $4, lifetime_value_high = $5 where customer_id = $1`,
        [ids.E3, v, v === null ? null : 3.25, v === null ? null : 100, v === null ? null : 180.5],
      );
    await set(0.5);
    try {
      const r = await get(a.readKey, '/v1/customers/E3');
      expectValid(r, 'Customer');
      expect(r.json.scores.intervals).toEqual({
        level: 0.9,
        expected_purchases: { low: 0.5, high: 3.25 },
        lifetime_value: { low: 100, high: 180.5, currency: 'USD' },
      });
    } finally {
      await set(null);
    }
  });

  it('answers null scores before the customer’s first recompute', async () => {
    const r = await get(a.readKey, '/v1/customers/E7');
    expectValid(r, 'Customer');
    expect(r.json.scores).toBeNull();
  });

  it('answers 304 to If-None-Match with the current ETag, and 200 again once the customer changed', async () => {
    const first = await get(a.readKey, '/v1/customers/E5');
    const etag = first.headers.get('etag')!;
    expect(etag).toMatch(/^"[\w-]{22}"$/);
    const again = await get(a.readKey, '/v1/customers/E5', { 'if-none-match': etag });
    expect(again.status).toBe(304);
    expect(again.text).toBe('');
    await t.pool.query(`update read_models.customers set consent_sms = true where customer_id = $1`, [
      ids.E5,
    ]);
    const changed = await get(a.readKey, '/v1/customers/E5', { 'if-none-match': etag });
    expect(changed.status).toBe(200);
    expect(changed.json.consent.sms).toBe(true);
  });

  it('answers 404, never another account’s customer, for an id only another account has', async () => {
    const r = await get(b.readKey, '/v1/customers/E4');
    expect(r.status).toBe(404);
    expect(r.json).toEqual({ detail: READ_DETAIL.noCustomer });
    const own = await get(b.readKey, '/v1/customers/E1');
    expectValid(own, 'Customer');
    expect(own.json.customer_id).not.toBe(ids.E1);
  });
});

describe('read keys and ingest keys', () => {
  it('refuses a read key on every write route with 403, /ingest/* and /v1/ alike', async () => {
    for (const [method, path] of [
      ['POST', '/v1/orders'],
      ['POST', '/ingest/orders'],
      ['POST', '/v1/customers'],
      ['PATCH', '/v1/account'],
      ['POST', '/v1/sync'],
      ['POST', '/webhooks/custom-api'],
    ] as const) {
      const r = await call(gw.url, method, path, { key: a.readKey, body: { orders: [orderRow()] } });
      expect(r.status, `${method} ${path}`).toBe(403);
      expect(r.json).toEqual({ detail: AUTH_DETAIL.readKeyOnIngest });
    }
  });

  it('lets an ingest key read only once its account allows it (off by default)', async () => {
    const refused = await get(a.key, '/v1/customers/E1');
    expect(refused.status).toBe(403);
    expect(refused.json).toEqual({ detail: AUTH_DETAIL.ingestKeyCannotRead });
    await setReadWithIngestKey(t.db, a.accountId, true);
    const allowed = await until(
      () => get(a.key, '/v1/customers/E1'),
      (r) => r.status === 200,
    );
    expectValid(allowed, 'Customer');
    await setReadWithIngestKey(t.db, a.accountId, false);
    await until(
      () => get(a.key, '/v1/customers/E1'),
      (r) => r.status === 403,
    );
  });

  it('rejects a key in the query string with 401 counted as a failed authentication, as on ingest', async () => {
    for (const path of [`/v1/customers?api_key=${a.readKey}`, `/v1/orders?x=${a.key}`]) {
      const r = await call(gw.url, path.startsWith('/v1/orders') ? 'POST' : 'GET', path, {
        key: a.readKey,
        ip: '203.0.113.77',
      });
      expect(r.status, path).toBe(401);
      expect(r.json).toEqual({ detail: AUTH_DETAIL.keyInQuery });
      expect(r.headers.get('ratelimit-policy')).toBe('"failed-auth";q=30;w=60');
    }
    const unknown = await call(gw.url, 'GET', `/v1/nowhere?x=${a.readKey}`);
    expect(unknown.status).toBe(401);
  });

  it('refuses a revoked read key with 401', async () => {
    const k = await mintApiKey(t.db, a.accountId, 'read_live');
    expect((await get(k.key, '/v1/holdout')).status).toBe(200);
    await t.pool.query(`update control.api_keys set revoked_at = now() where id = $1`, [k.id]);
    const r = await until(
      () => get(k.key, '/v1/holdout'),
      (x) => x.status === 401,
    );
    expect(r.json).toEqual({ detail: AUTH_DETAIL.revokedKey });
  });
});

describe('/v1/ ingest aliases', () => {
  it('answers POST /v1/orders exactly as POST /ingest/orders (dry run)', async () => {
    const body = { orders: [orderRow(), orderRow({ order_id: 'A2', order_date: 'nope' })] };
    const v1 = await call(gw.url, 'POST', '/v1/orders?dry_run=true', { key: a.key, body });
    const ingest = await call(gw.url, 'POST', '/ingest/orders?dry_run=true', { key: a.key, body });
    expect(v1.status).toBe(200);
    expect(v1.json).toEqual(ingest.json);
    expect(v1.headers.get('ratelimit-policy')).toBe('"per-key";q=600;w=60');
  });

  it('keeps the limits: 5,001 rows is the JSON 413 under /v1/ too', async () => {
    const orders = Array.from({ length: 5001 }, (_, i) => orderRow({ order_id: `X${i}` }));
    const r = await call(gw.url, 'POST', '/v1/orders', { key: a.key, body: { orders } });
    expect(r.status).toBe(413);
    expect(r.json).toEqual({ detail: 'Batch too large (5001 > 5000). Page your upload.' });
  });
});

describe('GET /v1/customers', () => {
  async function walk(key: string, query: string, limit: number): Promise<string[]> {
    const seen: string[] = [];
    let cursor: string | null = null;
    do {
      const r = await get(key, `/v1/customers?limit=${limit}${query}${cursor ? `&cursor=${cursor}` : ''}`);
      expectValid(r, 'CustomerPage');
      seen.push(...(r.json.customers as { external_id: string }[]).map((c) => c.external_id));
      cursor = r.json.next_cursor as string | null;
    } while (cursor);
    return seen;
  }

  it('filters by lifecycle state, churn risk range and updated_since', async () => {
    expect((await walk(a.readKey, '&lifecycle_state=Lapsed', 100)).sort()).toEqual(['E2', 'E3']);
    expect((await walk(a.readKey, '&churn_risk_min=0.4&churn_risk_max=0.8', 100)).sort()).toEqual([
      'E3',
      'E4',
      'E5',
    ]);
    expect(await walk(a.readKey, '&updated_since=2026-11-25T00:00:00Z', 100)).toEqual([]);
    expect((await walk(a.readKey, '&updated_since=2026-11-10T00:00:00%2B00:00', 100)).length).toBe(6);
  });

  it('walks every customer once in pages while customers are written between pages', async () => {
    const before = new Set(Object.keys(ids));
    const seen: string[] = [];
    let cursor: string | null = null;
    let page = 0;
    do {
      const r = await get(a.readKey, `/v1/customers?limit=2${cursor ? `&cursor=${cursor}` : ''}`);
      expectValid(r, 'CustomerPage');
      seen.push(...(r.json.customers as { external_id: string }[]).map((c) => c.external_id));
      cursor = r.json.next_cursor as string | null;
      // Writes while the walk goes on: a profile change and a new customer on either side of the cursor.
      if (page++ === 0) {
        await t.pool.query(`update read_models.customers set name = 'Moved' where account_id = $1`, [
          a.accountId,
        ]);
        await customer(a.accountId, 'LOW', { id: '00000000-0000-4000-8000-000000000000' });
        await customer(a.accountId, 'HIGH', { id: 'ffffffff-ffff-4fff-bfff-ffffffffffff' });
      }
    } while (cursor);
    expect(new Set(seen).size).toBe(seen.length);
    for (const ext of before) expect(seen).toContain(ext);
    expect(seen).toContain('HIGH');
    await t.pool.query(`delete from read_models.customers where external_id in ('LOW', 'HIGH')`);
  });

  it('answers only the key’s account', async () => {
    expect((await walk(b.readKey, '', 1)).sort()).toEqual(['E1', 'E3']);
  });

  it('answers 422 in the spec’s validation shape for a bad cursor, limit or filter', async () => {
    const r = await get(a.readKey, '/v1/customers?limit=5001');
    expect(r.status).toBe(422);
    expect(locs(r)).toEqual([['query', 'limit']]);
    const c = await get(a.readKey, '/v1/customers?cursor=abc');
    expect(c.json.detail[0].loc).toEqual(['query', 'cursor']);
    const f = await get(a.readKey, '/v1/customers?lifecycle_state=Gone&churn_risk_min=2');
    expect(locs(f)).toEqual([
      ['query', 'lifecycle_state'],
      ['query', 'churn_risk_min'],
    ]);
  });
});

describe('GET /v1/holdout, /v1/audiences/{type}, /v1/lift', () => {
  it('lists the current holdout members of the key’s account only', async () => {
    const r = await get(a.readKey, '/v1/holdout');
    expectValid(r, 'HoldoutPage');
    expect(r.json).toEqual({
      members: [{ customer_id: ids.E2, external_id: 'E2' }],
      next_cursor: null,
      scored_at: asOf.toISOString(),
    });
    const other = await get(b.readKey, '/v1/holdout');
    expect(externalIds(other.json.members)).toEqual(['E3']);
  });

  it('lists who the audience rule puts in win_back now, holdout excluded, a page at a time', async () => {
    const first = await get(a.readKey, '/v1/audiences/win_back?limit=1');
    expectValid(first, 'AudiencePage');
    const second = await get(a.readKey, `/v1/audiences/win_back?limit=1&cursor=${first.json.next_cursor}`);
    expectValid(second, 'AudiencePage');
    expect(second.json.next_cursor).toBeNull();
    const members = [...first.json.members, ...second.json.members].map(
      (m: { external_id: string }) => m.external_id,
    );
    expect(members.sort()).toEqual(['E3', 'E4']);
    const other = await get(b.readKey, '/v1/audiences/win_back');
    expect(other.json.members).toEqual([]);
    const unknown = await get(a.readKey, '/v1/audiences/birthday');
    expect(unknown.status).toBe(404);
  });

  it('answers the lift reports with interval, MDE, billable revenue and settlement', async () => {
    const r = await get(a.readKey, '/v1/lift');
    expectValid(r, 'LiftReports');
    expect(r.json.reports).toEqual([
      expect.objectContaining({
        campaign_type: 'win_back',
        period_start: '2026-10-01T00:00:00.000Z',
        lift: 0.2,
        interval: { low: 0.05, high: 0.35 },
        mde: 0.1,
        billable_revenue: { amount: 800, currency: 'USD' },
        settlement: {
          status: 'provisional',
          settles_at: null,
          settled_at: null,
          final_billable_revenue: null,
        },
      }),
    ]);
    const other = await get(b.readKey, '/v1/lift');
    expectValid(other, 'LiftReports');
    expect(other.json.reports).toEqual([]);
  });
});

describe('the read routes through the typed client (@holdfast/client, generated from /v1/openapi.json)', () => {
  /** Asserts a typed answer is valid against its schema (the types alone prove nothing at run time). */
  const valid = (schema: string, body: unknown) => {
    const validate =
      ajv.getSchema(`doc#/components/schemas/${schema}`) ??
      ajv.compile({ $ref: `doc#/components/schemas/${schema}` });
    expect(validate(body), JSON.stringify(validate.errors)).toBe(true);
  };

  it('reads a customer, a filtered page, the holdout, an audience and the lift of the key’s account', async () => {
    const hf = createHoldfastClient({ baseUrl: gw.url, key: a.readKey });
    const one = await hf.GET('/v1/customers/{external_id}', { params: { path: { external_id: 'E3' } } });
    expect(one.response.status).toBe(200);
    valid('Customer', one.data);
    expect(one.data?.scores?.lifecycle_state).toBe('Lapsed');

    const lapsed = await hf.GET('/v1/customers', {
      params: { query: { lifecycle_state: 'Lapsed', limit: 1 } },
    });
    valid('CustomerPage', lapsed.data);
    const firstPage = lapsed.data!.customers.map((c) => c.external_id);
    const next = await hf.GET('/v1/customers', {
      params: { query: { lifecycle_state: 'Lapsed', limit: 1, cursor: lapsed.data!.next_cursor! } },
    });
    expect([...firstPage, ...next.data!.customers.map((c) => c.external_id)].sort()).toEqual(['E2', 'E3']);

    const holdout = await hf.GET('/v1/holdout');
    valid('HoldoutPage', holdout.data);
    expect(holdout.data!.members.map((m) => m.external_id)).toEqual(['E2']);

    const audience = await hf.GET('/v1/audiences/{campaign_type}', {
      params: { path: { campaign_type: 'win_back' } },
    });
    valid('AudiencePage', audience.data);
    expect(audience.data!.members.map((m) => m.external_id).sort()).toEqual(['E3', 'E4']);

    const lift = await hf.GET('/v1/lift', { params: { query: { campaign_type: 'win_back' } } });
    valid('LiftReports', lift.data);
    expect(lift.data!.reports).toHaveLength(1);
  });

  it('answers another account’s external id 404 with the typed error body, and a conditional read 304', async () => {
    const hf = createHoldfastClient({ baseUrl: gw.url, key: b.readKey });
    const r = await hf.GET('/v1/customers/{external_id}', { params: { path: { external_id: 'E4' } } });
    expect(r.response.status).toBe(404);
    expect(r.error).toEqual({ detail: READ_DETAIL.noCustomer });
    const first = await hf.GET('/v1/holdout');
    const again = await hf.GET('/v1/holdout', {
      params: { header: { 'If-None-Match': first.response.headers.get('etag')! } },
    });
    expect(again.response.status).toBe(304);
  });
});
