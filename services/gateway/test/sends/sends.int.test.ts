// Send claim and confirm (POST /v1/sends, docs/read-api.md) on the real stack: the gateway in this
// process, PostgreSQL and Kafka; the recompute's campaign step folds, attributes and counts the lift.
// The merchant's calls go through the typed client (@holdfast/client), and every answer is validated
// against its schema in /v1/openapi.json.
import { randomUUID } from 'node:crypto';
import { Ajv2020 } from 'ajv/dist/2020.js';
import type { Kysely } from 'kysely';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createHoldfastClient, type HoldfastClient } from '@holdfast/client';
import { createAccount, mintApiKey } from '@holdfast/control-plane';
import { DEFAULT_AUDIENCE_RULES } from '@holdfast/campaign-store';
import { TransactionalAppender } from '@holdfast/kafka';
import { DEFAULT_READ_MODEL_SCHEMA } from '@holdfast/read-models';
import { migrateAnalytics, migrateCampaigns } from '@holdfast/migrations';
import { createCampaignStep, planAudiences } from '@holdfast/recompute';
import { createTestEnv, type TestEnv } from '@holdfast/testing';
import { buildOpenApiDocument } from '../../src/openapi/document.js';
import { SEND_DETAIL } from '../../src/sends/send-store.js';
import { ManualClock, startGateway, type TestGateway } from '@holdfast/testing/services';

const HOUR = 3_600_000;
const START = new Date(Math.floor(Date.now() / 1000) * 1000);
const asOf = new Date(START.getTime() - 24 * HOUR);

const doc = buildOpenApiDocument();
const ajv = new Ajv2020({ strict: false, validateFormats: false });
ajv.addSchema({ $id: 'doc', components: doc.components });
/** Asserts `body` is valid against components.schemas[`schema`] of /v1/openapi.json. */
function expectSchema(body: unknown, schema: string): void {
  const validate =
    ajv.getSchema(`doc#/components/schemas/${schema}`) ??
    ajv.compile({ $ref: `doc#/components/schemas/${schema}` });
  expect(validate(body), JSON.stringify(validate.errors)).toBe(true);
}

let t: TestEnv;
let gw: TestGateway;
let appender: TransactionalAppender;
const clock = new ManualClock(START);

interface Shop {
  accountId: string;
  key: string;
  readKey: string;
  hf: HoldfastClient;
  /** Customer ids by external id. */
  ids: Record<string, string>;
}

async function shop(storefrontDomain: string | null): Promise<Shop> {
  const { id } = await createAccount(t.db, { name: 'Shop', storefrontDomain });
  const key = (await mintApiKey(t.db, id, 'ingest_live')).key;
  const readKey = (await mintApiKey(t.db, id, 'read_live')).key;
  return { accountId: id, key, readKey, hf: createHoldfastClient({ baseUrl: gw.url, key }), ids: {} };
}

/** A scored customer: Lapsed (the win_back audience), with or without email consent, maybe in the holdout. */
async function customer(
  s: Shop,
  ext: string,
  o: { holdout?: boolean; consent?: boolean } = {},
): Promise<string> {
  const id = randomUUID();
  await t.pool.query(
    `insert into read_models.customers (account_id, customer_id, external_id, email, consent_marketing_email,
       created_at, updated_at)
     values ($1, $2, $3, $4, $5, $6, $6)`,
    [s.accountId, id, ext, `${ext.toLowerCase()}@example.com`, o.consent ?? true, asOf],
  );
  await t.pool.query(
    `insert into analytics.customer_scores (account_id, customer_id, external_id, churn_risk, lifecycle_state, p_alive,
       predicted_next_purchase_at, expected_purchases, expected_spend, realised_revenue, predicted_value,
       lifetime_value, is_holdout, model, model_params, horizon_days, as_of)
     values ($1, $2, $3, 0.9, 'Lapsed', 0.1, null, 0.2, 50, 100, 10, 110, $4, 'bgnbd-gg', '{}', 365, $5)`,
    [s.accountId, id, ext, o.holdout ?? false, asOf],
  );
  s.ids[ext] = id;
  return id;
}

async function order(s: Shop, customerId: string, orderId: string, at: Date, source: string | null) {
  await t.pool.query(
    `insert into read_models.orders (account_id, order_id, customer_id, order_date, order_amount, product_name, source,
       refunded_amount, cancelled_at, first_seen_at, updated_at)
     values ($1, $2, $3, $4, 80, 'Tea', $5, 0, null, now(), now())`,
    [s.accountId, orderId, customerId, at, source],
  );
}

/** The recompute's campaign step for one account, as an API sync runs it (no sends of ours). */
const campaignStep = (accountId: string, now: Date) =>
  createCampaignStep(
    { topicPrefix: t.topicPrefix, readModelSchema: DEFAULT_READ_MODEL_SCHEMA },
    { pool: t.pool, appender, codec: t.codec, now: () => now },
  )({ accountId, taskId: null }, { send: false });

const ledger = async (accountId: string) =>
  (
    await t.pool.query<{
      customer_id: string;
      status: string;
      arm: string;
      tracking_id: string | null;
      provider: string;
    }>(
      `select customer_id, status, arm, tracking_id, provider from analytics.campaign_assignments
        where account_id = $1 order by status, customer_id`,
      [accountId],
    )
  ).rows;

async function claim(s: Shop, body: Record<string, unknown>, idem = randomUUID(), key?: string) {
  const hf = key ? createHoldfastClient({ baseUrl: gw.url, key }) : s.hf;
  return hf.POST('/v1/sends', {
    // eslint-disable-next-line @typescript-eslint/no-explicit-any -- bad bodies are sent on purpose too
    body: body as any,
    params: { header: { 'Idempotency-Key': idem } },
  });
}

beforeAll(async () => {
  t = await createTestEnv('gw-sends');
  gw = await startGateway(t, { clock });
  await migrateAnalytics(t.db as unknown as Kysely<unknown>);
  await migrateCampaigns(t.db as unknown as Kysely<unknown>);
  appender = await TransactionalAppender.create(t.kafka, { name: `${t.topicPrefix}recompute`, size: 1 });
}, 60_000);

afterAll(async () => {
  await appender?.close();
  await gw?.close();
  await t?.close();
});

describe('claim → confirm → order: attributed and in the lift, holdout never handed out', () => {
  let a: Shop;
  let other: Shop;
  beforeAll(async () => {
    a = await shop('Shop.Example.com');
    other = await shop('other.example.com');
    for (const ext of ['W1', 'W2', 'W3', 'W4', 'W5']) await customer(a, ext);
    for (const ext of ['H1', 'H2']) await customer(a, ext, { holdout: true });
    await customer(a, 'N1', { consent: false });
    await customer(other, 'W1');
  });

  it('walks the audience in pages, hands out members with tracking ids and storefront links, never the holdout', async () => {
    const first = await claim(a, { campaign_type: 'win_back', channel: 'email', limit: 3 });
    expect(first.response.status).toBe(201);
    expectSchema(first.data, 'SendClaim');
    const p1 = first.data!;
    expect(p1.next_cursor).not.toBeNull();
    expect(new Date(p1.expires_at).getTime() - new Date(p1.claimed_at).getTime()).toBe(24 * HOUR);
    const pages = [p1];
    let cursor = p1.next_cursor;
    while (cursor) {
      const next = await claim(a, { send_id: p1.send_id, cursor, limit: 3 });
      expect(next.response.status).toBe(201);
      expectSchema(next.data, 'SendClaim');
      expect(next.data!.send_id).toBe(p1.send_id);
      pages.push(next.data!);
      cursor = next.data!.next_cursor;
    }
    const members = pages.flatMap((p) => p.members);
    expect(members.map((m) => m.external_id).sort()).toEqual(['W1', 'W2', 'W3', 'W4', 'W5']);
    expect(members.map((m) => m.customer_id)).toEqual(members.map((m) => m.customer_id).sort());
    expect(pages.reduce((n, p) => n + p.held_out, 0)).toBe(2);
    expect(pages.reduce((n, p) => n + p.left_out.no_consent, 0)).toBe(1);
    for (const m of members) {
      expect(m.tracking_id).toMatch(/^hft_[0-9a-f]{24}$/);
      expect(m.cta_url).toBe(
        `https://shop.example.com/?utm_source=holdfast&utm_medium=email&utm_campaign=win_back&utm_content=${m.tracking_id}`,
      );
    }
  });

  it('answers a repeated Idempotency-Key with the same page, and requires one', async () => {
    const idem = randomUUID();
    const once = await claim(other, { campaign_type: 'win_back', channel: 'sms' }, idem);
    const again = await claim(other, { campaign_type: 'win_back', channel: 'sms' }, idem);
    expect(once.response.status).toBe(201);
    expect(again.response.status).toBe(201);
    expect(again.data).toEqual(once.data);
    const none = await fetch(`${gw.url}/v1/sends`, {
      method: 'POST',
      headers: { authorization: `Bearer ${a.key}`, 'content-type': 'application/json' },
      body: JSON.stringify({ campaign_type: 'win_back', channel: 'email' }),
    });
    expect(none.status).toBe(422);
    const body = (await none.json()) as { detail: { loc: unknown[] }[] };
    expectSchema(body, 'ValidationErrorBody');
    expect(body.detail[0]!.loc).toEqual(['header', 'idempotency-key']);
  });

  it('refuses a read key (403), a bad body (422), a foreign or unknown claim (404), a shop without storefront (409)', async () => {
    const read = await claim(a, { campaign_type: 'win_back', channel: 'email' }, randomUUID(), a.readKey);
    expect(read.response.status).toBe(403);
    expectSchema(read.error, 'DetailBody');
    const bad = await claim(a, { campaign_type: 'spam', channel: 'email', limit: 5001 });
    expect(bad.response.status).toBe(422);
    expectSchema(bad.error, 'ValidationErrorBody');
    const mine = await claim(a, { campaign_type: 'vip', channel: 'email' });
    const foreign = await claim(other, {
      send_id: mine.data!.send_id,
      cursor: 'djE6MDAwMDAwMDAtMDAwMC00MDAwLTgwMDAtMDAwMDAwMDAwMDAx',
    });
    expect(foreign.response.status).toBe(404);
    expect(foreign.error).toEqual({ detail: SEND_DETAIL.noClaim });
    for (const raw of ['{"campaign_type": "win_back",', '[1, 2]', '"x"', ''])
      for (const path of ['/v1/sends', `/v1/sends/${randomUUID()}/confirm`]) {
        const hostile = await fetch(`${gw.url}${path}`, {
          method: 'POST',
          headers: {
            authorization: `Bearer ${a.key}`,
            'content-type': 'application/json',
            'idempotency-key': randomUUID(),
          },
          body: raw,
        });
        // A claim validates its body (422); a confirm looks its claim up first (unknown: 404).
        expect(hostile.status).toBe(path === '/v1/sends' || raw.startsWith('{') ? 422 : 404);
        expectSchema(await hostile.json(), hostile.status === 422 ? 'ValidationErrorBody' : 'DetailBody');
      }
    const forged = await claim(a, { send_id: mine.data!.send_id, cursor: 'not-ours' });
    expect(forged.response.status).toBe(422);
    expectSchema(forged.error, 'ValidationErrorBody');
    expect((forged.error as { detail: { loc: unknown[] }[] }).detail[0]!.loc).toEqual(['body', 'cursor']);
    const bare = await shop(null);
    const noStore = await claim(bare, { campaign_type: 'win_back', channel: 'email' });
    expect(noStore.response.status).toBe(409);
    expectSchema(noStore.error, 'DetailBody');
  });

  it('hands nobody out twice while a claim is open (cool-down), and an unconfirmed claim adds neither arm', async () => {
    const second = await claim(a, { campaign_type: 'win_back', channel: 'email', limit: 5000 });
    expect(second.data!.members).toEqual([]);
    expect(second.data!.left_out.cooling_down).toBe(7); // five members and two holdout: both arms alike
    expect(second.data!.held_out).toBe(0);
    const run = await campaignStep(a.accountId, clock.now());
    expect(run.status).toBe('skipped');
    expect(await ledger(a.accountId)).toEqual([]);
  });

  it('confirms (another account: 404; a repeat: the same answer), then the step attributes the order and counts both arms', async () => {
    const { rows } = await t.pool.query<{ send_id: string; tracking_id: string; customer_id: string }>(
      `select m.send_id, m.tracking_id, m.customer_id from control.send_claim_members m
         join control.send_claims c using (send_id)
        where c.account_id = $1 and c.campaign_type = 'win_back' and not m.holdout and c.claimed_at = (
          select min(claimed_at) from control.send_claims where account_id = $1)`,
      [a.accountId],
    );
    const sendId = rows[0]!.send_id;
    const sentAt = new Date(clock.now().getTime() + 60_000);
    clock.advance(2 * 60_000);
    const foreign = await other.hf.POST('/v1/sends/{send_id}/confirm', {
      params: { path: { send_id: sendId } },
      body: { sent_at: sentAt.toISOString() },
    });
    expect(foreign.response.status).toBe(404);
    expectSchema(foreign.error, 'DetailBody');
    const confirm = () =>
      a.hf.POST('/v1/sends/{send_id}/confirm', {
        params: { path: { send_id: sendId } },
        body: { sent_at: sentAt.toISOString() },
      });
    const first = await confirm();
    expect(first.response.status).toBe(200);
    expectSchema(first.data, 'SendConfirmed');
    expect(first.data).toMatchObject({
      send_id: sendId,
      members: 5,
      held_out: 2,
      sent_at: sentAt.toISOString(),
    });
    clock.advance(60_000);
    const again = await confirm();
    expect(again.data).toEqual(first.data);
    const page = await claim(a, {
      send_id: sendId,
      cursor: 'djE6MDAwMDAwMDAtMDAwMC00MDAwLTgwMDAtMDAwMDAwMDAwMDAx',
    });
    expect(page.response.status).toBe(409);

    // W1 buys through the merchant's email link; W2 buys without it two hours later (last touch).
    const w1 = rows.find((r) => r.customer_id === a.ids.W1)!;
    const orderAt = new Date(sentAt.getTime() + HOUR);
    await order(
      a,
      a.ids.W1!,
      'o-exact',
      orderAt,
      `https://shop.example.com/?utm_source=holdfast&utm_content=${w1.tracking_id}`,
    );
    await order(a, a.ids.W2!, 'o-touch', new Date(orderAt.getTime() + HOUR), null);
    const now = new Date(orderAt.getTime() + 2 * HOUR);
    const run = await campaignStep(a.accountId, now);
    expect(run.attributions).toBe(2);

    const rowsAfter = await ledger(a.accountId);
    expect(
      rowsAfter
        .filter((r) => r.status === 'merchant_sent')
        .map((r) => r.customer_id)
        .sort(),
    ).toEqual(['W1', 'W2', 'W3', 'W4', 'W5'].map((e) => a.ids[e]).sort());
    expect(
      rowsAfter
        .filter((r) => r.status === 'held_out')
        .map((r) => r.customer_id)
        .sort(),
    ).toEqual([a.ids.H1, a.ids.H2].sort());
    expect(new Set(rowsAfter.map((r) => r.provider))).toEqual(new Set(['merchant']));

    const attributions = (
      await t.pool.query(
        `select order_id, tracking_id, method from analytics.attributions where account_id = $1 order by order_id`,
        [a.accountId],
      )
    ).rows;
    expect(attributions).toEqual([
      { order_id: 'o-exact', tracking_id: w1.tracking_id, method: 'exact' },
      {
        order_id: 'o-touch',
        tracking_id: rows.find((r) => r.customer_id === a.ids.W2)!.tracking_id,
        method: 'last_touch',
      },
    ]);
    const events = (
      await t.pool.query<{ subject: string }>(
        `select subject from control.outbound_events where account_id = $1 and event_type = 'recovery.attributed' order by subject`,
        [a.accountId],
      )
    ).rows.map((r) => r.subject);
    expect(events).toEqual(['order:o-exact', 'order:o-touch']);

    // The lift of the month: the five members treated, the two holdout members the comparison group.
    const lift = await createHoldfastClient({ baseUrl: gw.url, key: a.readKey }).GET('/v1/lift', {
      params: { query: { campaign_type: 'win_back' } },
    });
    expect(lift.response.status).toBe(200);
    expectSchema(lift.data, 'LiftReports');
    const month = lift.data!.reports.find(
      (r) => new Date(r.period_start) <= sentAt && sentAt < new Date(r.period_end),
    );
    expect(month).toMatchObject({ treated_customers: 5, holdout_customers: 2 });

    // A second step folds nothing twice.
    await campaignStep(a.accountId, new Date(now.getTime() + HOUR));
    expect((await ledger(a.accountId)).length).toBe(7);
  });
});

describe('an unconfirmed claim expires: nothing attributable, nobody counted, everyone free again', () => {
  it('409 on a late confirm; no ledger row, no attribution; the nightly plan and a new claim take them again', async () => {
    const e = await shop('shop.example.com');
    for (const ext of ['X1', 'X2', 'X3']) await customer(e, ext);
    await customer(e, 'XH', { holdout: true });
    const made = await claim(e, { campaign_type: 'win_back', channel: 'email' });
    expect(made.data!.members).toHaveLength(3);
    const x1 = made.data!.members.find((m) => m.external_id === 'X1')!;
    const claimedAt = clock.now();

    // While open, the nightly plan leaves them alone (the claim counts for the cool-down). The plan
    // runs in a transaction rolled back, so it leaves no ledger row behind.
    const plan = async (now: Date) => {
      const c = await t.pool.connect();
      try {
        await c.query('begin');
        return await planAudiences(c, {
          accountId: e.accountId,
          runId: randomUUID(),
          taskId: null,
          now,
          readModelSchema: DEFAULT_READ_MODEL_SCHEMA,
          emailProvider: null,
          smsProvider: null,
          rules: DEFAULT_AUDIENCE_RULES,
          settings: {
            enabledTypes: new Set(['win_back']),
            frequencyCap: { messages: 1, days: 7 },
            sandbox: true,
          },
          storefrontDomain: 'shop.example.com',
        });
      } finally {
        await c.query('rollback');
        c.release();
      }
    };
    expect(await plan(claimedAt)).toMatchObject({ sandbox_simulated: 0, held_out: 0 });

    clock.advance(25 * HOUR);
    const late = await e.hf.POST('/v1/sends/{send_id}/confirm', {
      params: { path: { send_id: made.data!.send_id } },
      body: { sent_at: new Date(claimedAt.getTime() + 60_000).toISOString() },
    });
    expect(late.response.status).toBe(409);
    expect(late.error).toEqual({ detail: SEND_DETAIL.expired });

    await order(
      e,
      e.ids.X1!,
      'o-late',
      clock.now(),
      `https://shop.example.com/?utm_source=holdfast&utm_content=${x1.tracking_id}`,
    );
    const run = await campaignStep(e.accountId, clock.now());
    expect(run.attributions).toBe(0);
    expect(await ledger(e.accountId)).toEqual([]);
    // Expired: the nightly plan would take them again (three treated, one held out).
    expect(await plan(clock.now())).toMatchObject({ sandbox_simulated: 3, held_out: 1 });

    const again = await claim(e, { campaign_type: 'win_back', channel: 'email' });
    expect(again.data!.members.map((m) => m.external_id).sort()).toEqual(['X1', 'X2', 'X3']);
    expect(again.data!.held_out).toBe(1);
    expect(await plan(clock.now())).toMatchObject({ sandbox_simulated: 0 }); // the new claim is open
  });
});
