// The SQL attribution (attribute-orders.ts: one set-based statement) against the pure rule of
// @holdfast/domain (sendsOfOurs + attributeOrders, one order at a time): on random send ledgers,
// projected sends and orders, run on the real PostgreSQL, both must give the same attributions, every
// column. A neighbouring account holds sends too, which must never be credited.
import { randomUUID } from 'node:crypto';
import fc from 'fast-check';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createAccount } from '@holdfast/control-plane';
import {
  attributeOrders,
  sendsOfOurs,
  type AttributionOrder,
  type AttributionSend,
  type LedgerSend,
} from '@holdfast/domain';
import { createTestEnv, type TestEnv } from '@holdfast/testing';
import { prepareCampaignSchemas } from '../campaigns/test-support/seed.js';
import { recomputeAttributions } from '../../src/attribution/attribute-orders.js';

let t: TestEnv;

beforeAll(async () => {
  t = await createTestEnv('attrprop');
  await prepareCampaignSchemas(t);
});
afterAll(() => t.close());

const DAY = 86_400_000;
const T = Date.parse('2025-03-10T12:00:00.000Z');
// Around the window's edges (7 days, both ends included), ties, and sends after the order.
// Orders mostly at T, so sends land on those edges often (repeats weigh a value up).
const at = (o: number) => new Date(T + o).toISOString();
const sendInstant = fc
  .constantFrom(0, -1, 1, -DAY, -DAY, -DAY, -7 * DAY, -7 * DAY + 1, -7 * DAY - 1, -8 * DAY)
  .map(at);
const orderInstant = fc.constantFrom(0, 0, 0, -DAY, 1).map(at);
/** True one time in five. */
const rarely = fc.nat(4).map((n) => n === 0);
const nullable = <V>(arb: fc.Arbitrary<V>) => fc.option(arb, { nil: null, freq: 4 });

// Small pools, so tracking ids, customers and instants collide often. 'Q' sorts before 'a' (code
// points) and can never match exactly (utm_content is lower-cased).
const TRACKING = ['a', 'b', 'c', 'Q', 'd-1', 'd_1'] as const;
const CUSTOMERS = [0, 1, 2] as const;
const STATUSES = ['sent', 'possibly_sent', 'failed', 'planned', 'sending', 'sandbox_simulated'] as const;

const sendArb = fc.record({
  tracking: fc.constantFrom(...TRACKING),
  customer: fc.constantFrom(...CUSTOMERS),
  type: fc.constantFrom('win_back', 'vip'),
  channel: fc.constantFrom('email', 'sms'),
  sentAt: sendInstant,
  // where the send is known: the ledger (with a status, maybe never sent), the projection, or both
  where: fc.constantFrom('ledger', 'projected', 'both'),
  status: fc.oneof(
    { weight: 4, arbitrary: fc.constant('sent') },
    { weight: 2, arbitrary: fc.constantFrom(...STATUSES) },
  ),
  neverSent: rarely,
});

// Source texts: exact references (ours, a neighbour's, unknown), upper case, landing URLs, the
// merchant's own campaigns, utm_source spelled in odd ways, whitespace ending a value. Rendered with
// the run's token (tracking ids are unique across the whole database).
const sourceArb = fc.oneof(
  fc.constantFrom(
    null,
    null,
    'organic',
    'email',
    'utm_content=',
    'https://shop.example.com/?utm_medium=email',
  ),
  fc.record({
    id: fc.constantFrom(...TRACKING, 'zz', 'n-a'),
    upper: fc.boolean(),
    shape: fc.constantFrom('url', 'text', 'klaviyo', 'HOLDFAST', 'holdfastx', 'tab', 'hash'),
  }),
);
type SourceSpec = typeof sourceArb extends fc.Arbitrary<infer S> ? S : never;

function renderSource(spec: SourceSpec, tid: (id: string) => string): string | null {
  if (spec === null || typeof spec === 'string') return spec;
  const id = tid(spec.id);
  const content = `utm_content=${spec.upper ? id.toUpperCase() : id}`;
  switch (spec.shape) {
    case 'url':
      return `https://shop.example.com/?utm_source=holdfast&utm_medium=email&${content}`;
    case 'text':
      return `email ${content}`;
    case 'klaviyo':
      return `https://shop.example.com/?utm_source=klaviyo&${content}`;
    case 'HOLDFAST':
      return `?UTM_SOURCE=HOLDFAST&${content}`;
    case 'holdfastx':
      return `?utm_source=holdfastx&${content}`;
    case 'tab':
      return `utm_source=holdfast\t${content}`;
    default:
      return `utm_source=holdfast#${content}`;
  }
}

const scenarioArb = fc.record({
  sends: fc.uniqueArray(sendArb, { selector: (s) => s.tracking, minLength: 2, maxLength: TRACKING.length }),
  // The neighbour's sends ('n-a', 'n-b'), to the same customers: never ours to credit.
  neighbour: fc.array(fc.record({ customer: fc.constantFrom(...CUSTOMERS), sentAt: sendInstant }), {
    maxLength: 2,
  }),
  orders: fc.array(
    fc.record({
      customer: nullable(fc.constantFrom(...CUSTOMERS)),
      orderDate: orderInstant,
      source: sourceArb,
      amount: fc.constantFrom(0, 19.99, 50, 250.25),
      refunded: fc.constantFrom(0, 5.5, 300),
      rate: fc.constantFrom(1, 2),
      cancelled: rarely,
    }),
    { minLength: 2, maxLength: 8 },
  ),
});
type Scenario = typeof scenarioArb extends fc.Arbitrary<infer S> ? S : never;

async function seed(s: Scenario, account: string, neighbour: string, customers: readonly string[]) {
  const tok = randomUUID().replace(/-/g, '').slice(0, 12);
  const tid = (id: string) => `hft_${tok}_${id}`;
  const ledger: LedgerSend[] = [];
  const projected: AttributionSend[] = [];
  for (const x of s.sends) {
    const send: AttributionSend = {
      trackingId: tid(x.tracking),
      customerId: customers[x.customer]!,
      campaignType: x.type,
      channel: x.channel,
      sentAt: x.sentAt,
    };
    if (x.where !== 'projected') {
      const row = { ...send, status: x.status, sentAt: x.neverSent ? null : x.sentAt };
      ledger.push(row);
      await t.pool.query(
        `insert into analytics.campaign_assignments (assignment_id, account_id, run_id, campaign_type, customer_id, arm,
           channel, provider, status, tracking_id, url, assigned_at, sent_at, claimed_at)
         values (gen_random_uuid(), $1, gen_random_uuid(), $2, $3, 'treated', $4, 'p', $5, $6, 'u', $7, $8, $7)`,
        [
          account,
          row.campaignType,
          row.customerId,
          row.channel,
          row.status,
          row.trackingId,
          x.sentAt,
          row.sentAt,
        ],
      );
    }
    if (x.where !== 'ledger') {
      projected.push(send);
      await insertProjected(account, send);
    }
  }
  for (const [i, n] of s.neighbour.entries())
    await insertProjected(neighbour, {
      trackingId: tid(`n-${'ab'[i]}`),
      customerId: customers[n.customer]!,
      campaignType: 'win_back',
      channel: 'email',
      sentAt: n.sentAt,
    });
  const orders: AttributionOrder[] = [];
  for (const [i, o] of s.orders.entries()) {
    const orderId = `o-${i}`;
    const customerId = o.customer === null ? null : customers[o.customer]!;
    const cents = (v: number) => Math.round(v * o.rate * 100);
    const source = renderSource(o.source, tid);
    orders.push({
      orderId,
      customerId,
      orderDate: o.orderDate,
      source,
      cancelled: o.cancelled,
      // The conversion rule's generated column: each amount rounded in the reporting currency.
      netAmount: o.cancelled ? 0 : (cents(o.amount) - cents(o.refunded)) / 100,
    });
    await t.pool.query(
      `insert into read_models.orders (account_id, order_id, customer_id, order_date, order_amount, product_name, source,
         refunded_amount, cancelled_at, fx_rate, first_seen_at, updated_at)
       values ($1, $2, $3, $4, $5, 'Tea', $6, $7, $8, $9, now(), now())`,
      [
        account,
        orderId,
        customerId,
        o.orderDate,
        o.amount,
        source,
        o.refunded,
        o.cancelled ? o.orderDate : null,
        o.rate,
      ],
    );
  }
  return { ledger, projected, orders };
}

const insertProjected = (account: string, s: AttributionSend) =>
  t.pool.query(
    `insert into read_models.campaign_sends (tracking_id, account_id, customer_id, campaign_type, channel, provider,
       url, sent_at, event_id, received_at)
     values ($1, $2, $3, $4, $5, 'p', 'u', $6, gen_random_uuid()::text, $6)`,
    [s.trackingId, account, s.customerId, s.campaignType, s.channel, s.sentAt],
  );

async function stored(account: string) {
  const { rows } = await t.pool.query<Record<string, unknown>>(
    `select order_id, tracking_id, campaign_type, channel, method, order_date, net_revenue
       from analytics.attributions where account_id = $1 order by order_id`,
    [account],
  );
  return rows.map((r) => ({
    orderId: r.order_id,
    trackingId: r.tracking_id,
    campaignType: r.campaign_type,
    channel: r.channel,
    method: r.method,
    orderDate: (r.order_date as Date).toISOString(),
    netRevenue: Number(r.net_revenue),
  }));
}

describe('the SQL attribution agrees with the pure rule of @holdfast/domain', () => {
  it('on random ledgers, projected sends and orders', async () => {
    const neighbour = (await createAccount(t.db, { name: 'Neighbour' })).id;
    await fc.assert(
      fc.asyncProperty(scenarioArb, async (s) => {
        const account = (await createAccount(t.db, { name: 'Shop' })).id;
        const customers = CUSTOMERS.map(() => randomUUID());
        const { ledger, projected, orders } = await seed(s, account, neighbour, customers);
        await recomputeAttributions(t.pool, {
          accountId: account,
          readModelSchema: 'read_models',
          now: new Date(),
        });
        const expected = attributeOrders(orders, sendsOfOurs(ledger, projected)).sort((a, b) =>
          a.orderId.localeCompare(b.orderId),
        );
        expect(await stored(account)).toEqual(expected);
        console.log('DBG', JSON.stringify(expected.map((e) => e.method)));
      }),
      { numRuns: 80 },
    );
  });
});
