import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { connectTile, createPixelKey } from '@holdfast/control-plane';
import type { RunningProjector } from '@holdfast/projections';
import { countTopicRecords, createTestEnv, type TestEnv, until } from '@holdfast/testing';
import { newAccount, runProjector, startGateway, type TestGateway } from '@holdfast/testing/services';
import { BODY_BUDGET_DETAIL } from '../../src/http/body-budget.js';
import {
  answerProblems,
  HOSTILE_CORPUS,
  Rng,
  type CorpusContext,
  type StoredMarker,
  runFuzz,
  rawRequest,
} from '@holdfast/testing/hostile';

const SHOP = 'https://shop.example.com';

let t: TestEnv;
let projector: RunningProjector;
let stack: TestGateway;
let ctx: CorpusContext;
const stored: StoredMarker[] = [];

beforeAll(async () => {
  t = await createTestEnv('hostile');
  projector = await runProjector(t);
  stack = await startGateway(t);
  const a = await newAccount(t);
  await connectTile(t.db, a.accountId, 'custom_integration');
  const zp = await connectTile(t.db, a.accountId, 'zero_party');
  const pixel = await createPixelKey(t.db, a.accountId, [SHOP]);
  ctx = {
    ingestKey: a.key,
    accountId: a.accountId,
    zeroPartyQuery: `?account_id=${a.accountId}&token=${zp.token}`,
    pixelKey: pixel.key,
    origin: SHOP,
    rng: new Rng(14),
    now: new Date(),
  };
});

afterAll(async () => {
  await stack?.close();
  await projector?.stop();
  await t?.close();
});

describe('the hostile-input corpus through the real gateway', () => {
  it.each(HOSTILE_CORPUS.map((c) => [`${c.route} · ${c.name}`, c] as const))(
    'given %s, when sent, then it gets its defined answer with the spec body and no leak',
    async (_name, c) => {
      const built = c.build(ctx);
      const answer = await rawRequest(stack.url, built.request);
      expect(answerProblems(built, answer), answer.text.slice(0, 300)).toEqual([]);
      if (built.expect.kind === 'stored') stored.push(...built.expect.stored);
    },
  );

  it('given every accepted case, when the projector has caught up, then each record is stored and nothing is dead-lettered', async () => {
    expect(stored.length).toBeGreaterThan(10);
    for (const m of stored) {
      await until(
        async () =>
          (
            await t.pool.query<{ n: number }>(
              `select count(*)::int as n from read_models.${m.table} where account_id = $1 and ${m.column}::text = $2`,
              [ctx.accountId, m.value],
            )
          ).rows[0]!.n,
        (n) => n === 1,
      );
    }
    const { rows } = await t.pool.query<{ reason: string }>(`select reason from read_models.dead_letters`);
    expect(rows).toEqual([]);
    // The dead-letter topic, read apart from the table: a letter announced but never stored counts too.
    expect(await countTopicRecords(t.verifier, `${t.topicPrefix}holdfast.dlq`)).toBe(0);
  });

  it('given the amounts at the edge of numeric(18,4), when stored, then they read back as sent (rounded to 4 places)', async () => {
    const id = ctx.rng.id('edge');
    const body = `{"orders":[{"order_id":"${id}","customer_id":"c1","order_date":"2024-01-02T10:00:00Z","order_amount":99999999999999.98,"refunded_amount":-0,"discount_pct":1e308,"product_name":"Tea"}]}`;
    const r = await rawRequest(stack.url, {
      method: 'POST',
      path: '/ingest/orders',
      headers: { authorization: `Bearer ${ctx.ingestKey}`, 'content-type': 'application/json' },
      body,
    });
    expect(r.json).toMatchObject({ accepted: 1, dropped_invalid: 0 });
    const row = await until(
      async () =>
        (
          await t.pool.query<{ order_amount: string; refunded_amount: string }>(
            `select order_amount::text, refunded_amount::text from read_models.orders where account_id = $1 and order_id = $2`,
            [ctx.accountId, id],
          )
        ).rows[0],
      (v) => v !== undefined,
    );
    expect(row).toEqual({ order_amount: '99999999999999.9800', refunded_amount: '0.0000' });
  });
});

describe('RateLimit headers (draft-ietf-httpapi-ratelimit-headers)', () => {
  it('given an ingest call, then the answer names the per-key policy and what remains', async () => {
    const a = await newAccount(t);
    const r = await rawRequest(stack.url, {
      method: 'GET',
      path: '/ingest/health',
      headers: { authorization: `Bearer ${a.key}` },
    });
    expect(r.status).toBe(200);
    expect(r.headers['ratelimit-policy']).toBe('"per-key";q=600;w=60');
    expect(r.headers.ratelimit).toMatch(/^"per-key";r=599;t=\d+$/);
  });

  it('given a failed authentication, then the answer names the failed-auth policy', async () => {
    const r = await rawRequest(stack.url, {
      method: 'POST',
      path: '/webhooks/custom-api',
      headers: { authorization: 'Bearer tk_live_nope', 'x-forwarded-for': '198.51.100.140' },
      body: '{}',
    });
    expect(r.status).toBe(401);
    expect(r.headers['ratelimit-policy']).toBe('"failed-auth";q=30;w=60');
    expect(r.headers.ratelimit).toMatch(/^"failed-auth";r=29;t=\d+$/);
  });

  it('given the zero-party webhook, then the answer names the per-account policy', async () => {
    const r = await rawRequest(stack.url, {
      method: 'POST',
      path: `/webhooks/zero-party${ctx.zeroPartyQuery}`,
      headers: { 'content-type': 'application/json' },
      body: '{}',
    });
    expect(r.status).toBe(400);
    expect(r.headers['ratelimit-policy']).toBe('"per-account";q=600;w=60');
  });
});

describe('per-IP limits cannot be walked around', () => {
  it('given 30 failures spread over one IPv6 /64, when the /64 fails again, then 429', async () => {
    for (let i = 0; i < 30; i++) {
      const r = await rawRequest(stack.url, {
        method: 'GET',
        path: '/ingest/health',
        headers: {
          authorization: 'Bearer tk_live_nope',
          'x-forwarded-for': `2001:db8:14:1::${(i + 1).toString(16)}`,
        },
      });
      expect(r.status).toBe(401);
    }
    const other = await rawRequest(stack.url, {
      method: 'GET',
      path: '/ingest/health',
      headers: {
        authorization: 'Bearer tk_live_nope',
        'x-forwarded-for': '2001:db8:14:1:ffff:ffff:ffff:ffff',
      },
    });
    expect(other.status).toBe(429);
    expect(other.headers['retry-after']).toMatch(/^\d+$/);
    const neighbour = await rawRequest(stack.url, {
      method: 'GET',
      path: '/ingest/health',
      headers: { authorization: 'Bearer tk_live_nope', 'x-forwarded-for': '2001:db8:14:2::1' },
    });
    expect(neighbour.status).toBe(401);
  });
});

describe('the body budget', () => {
  it('given bodies in flight over the budget, when another arrives, then 503 with Retry-After and {detail}, and the budget comes back', async () => {
    const small = await startGateway(t, { config: { bodyBudgetBytes: 100_000 } });
    try {
      const a = await newAccount(t);
      const headers = { authorization: `Bearer ${a.key}`, 'content-type': 'application/json' };
      const over = await rawRequest(small.url, {
        method: 'POST',
        path: '/ingest/orders',
        headers,
        body: JSON.stringify({ orders: [{ order_id: 'x'.repeat(150_000) }] }),
      });
      expect(over.status).toBe(503);
      expect(over.headers['retry-after']).toBe('2');
      expect(over.json).toEqual({ detail: BODY_BUDGET_DETAIL });
      const fits = await rawRequest(small.url, {
        method: 'POST',
        path: '/ingest/orders',
        headers,
        body: JSON.stringify({ orders: [] }),
      });
      expect(fits.status).toBe(400);
      const chunked = await fetch(`${small.url}/ingest/orders`, {
        method: 'POST',
        headers,
        body: new Blob([JSON.stringify({ orders: [{ product_name: 'y'.repeat(150_000) }] })]).stream(),
        duplex: 'half',
      });
      expect(chunked.status).toBe(503);
      await chunked.text();
    } finally {
      await small.close();
    }
  });
});

describe('a short fuzz run (the benchmark in small)', () => {
  it('given 2,000 seeded hostile requests with the limits lifted, then no 5xx, no wrong accept, no malformed body, no leak, every canary answered, nothing dead-lettered', async () => {
    const fuzz = await startGateway(t, { config: { testMode: true, unsafeLiftLimits: true } });
    try {
      const tally = await runFuzz({
        url: fuzz.url,
        fixtures: {
          ingestKey: ctx.ingestKey,
          accountId: ctx.accountId,
          zeroPartyQuery: ctx.zeroPartyQuery,
          pixelKey: ctx.pixelKey,
        },
        requests: 2000,
        seed: 2026,
        concurrency: 8,
        deadline: Date.now() + 240_000,
      });
      expect(tally.examples).toEqual([]);
      expect({
        sent: tally.sent,
        serverErrors: tally.serverErrors,
        transportErrors: tally.transportErrors,
        canaries: tally.canaries,
        canaryFailures: tally.canaryFailures,
      }).toEqual({ sent: 2000, serverErrors: 0, transportErrors: 0, canaries: 20, canaryFailures: 0 });
      // Everything the run appended is folded once a sentinel order of the same account is.
      const sentinel = ctx.rng.id('sentinel');
      await rawRequest(fuzz.url, {
        method: 'POST',
        path: '/ingest/orders',
        headers: { authorization: `Bearer ${ctx.ingestKey}`, 'content-type': 'application/json' },
        body: JSON.stringify({
          orders: [
            {
              order_id: sentinel,
              customer_id: 'c',
              order_date: '2024-01-02T10:00:00Z',
              order_amount: 1,
              product_name: 'Tea',
            },
          ],
        }),
      });
      await until(
        async () =>
          (
            await t.pool.query<{ n: number }>(
              `select count(*)::int as n from read_models.orders where account_id = $1 and order_id = $2`,
              [ctx.accountId, sentinel],
            )
          ).rows[0]!.n,
        (n) => n === 1,
        60_000,
      );
      const { rows } = await t.pool.query(`select reason from read_models.dead_letters`);
      expect(rows).toEqual([]);
      expect(await countTopicRecords(t.verifier, `${t.topicPrefix}holdfast.dlq`)).toBe(0);
    } finally {
      await fuzz.close();
    }
  }, 300_000);
});
