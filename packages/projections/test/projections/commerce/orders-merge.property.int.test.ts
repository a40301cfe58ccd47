// The SQL order merge (write-orders.ts: COPY for first writes, a set-based UPDATE in rounds for
// re-posts, identity resolved in memory per chunk) against the pure rules of @holdfast/domain
// (decideIdentity, mergeCustomer, evolveOrder applied one record at a time): on random sequences of
// order and customer events, cut into random chunks (so customers are written out and loaded back
// between chunks), both must end with the same orders and customers, every column.
import fc from 'fast-check';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { CustomerRow, OrderRow as OrderEventRow } from '@holdfast/contracts';
import {
  acquisitionChannel,
  conversionOn,
  convertAmount,
  decideIdentity,
  evolveOrder,
  orderWriteOf,
  mergeCustomer,
  netAmount,
  newCustomer,
  ReferenceRates,
  type CustomerState,
  type OrderRow,
} from '@holdfast/domain';
import { createTestEnv, type TestEnv } from '@holdfast/testing';
import { customerUpserted, metadata, orderUpserted } from '@holdfast/testing/events';
import { ProjectionHarness, type Given } from '../../test-support/projection-harness.js';
import { wireCommerce } from '../../../src/projections/commerce/commerce.projection.js';
import { customerUuid } from '../../../src/projections/commerce/customer-id.js';

let t: TestEnv;
let sql: ProjectionHarness;

beforeAll(async () => {
  t = await createTestEnv('ordersprop');
  sql = await ProjectionHarness.create(t, 'op', wireCommerce());
});
afterAll(() => t.close());

const nullable = <T>(arb: fc.Arbitrary<T>) => fc.option(arb, { nil: null, freq: 3 });
const day = (d: number) => new Date(Date.UTC(2025, 0, d)).toISOString();

// Small pools, so re-posts, shared emails and phones and contradicting external ids come up often.
const orderArb: fc.Arbitrary<OrderEventRow> = fc.record({
  order_id: fc.constantFrom('o-1', 'o-2', 'o-3'),
  customer_id: nullable(fc.constantFrom('c-1', 'c-2', 'c-3')),
  order_date: fc.constantFrom(day(1), day(2), '2025-01-02T12:00:00.123Z'),
  order_amount: fc.constantFrom(0, 19.99, 50, 100, 250.5),
  product_name: fc.constantFrom('Tea', 'Kettle', 'Green tea'),
  email: nullable(fc.constantFrom('ann@x.co', 'bob@x.co', 'family@x.co')),
  phone: nullable(fc.constantFrom('+15125550100', '+15125550101')),
  customer_name: nullable(fc.constantFrom('Ann', 'Bob')),
  source: nullable(fc.constantFrom('email', 'organic')),
  order_channel: nullable(fc.constantFrom('web', 'pos')),
  currency: fc.constantFrom('USD', 'EUR'),
  shipping_city: nullable(fc.constantFrom('Austin', 'Dallas')),
  shipping_state: nullable(fc.constant('TX')),
  shipping_zip: nullable(fc.constantFrom('78701', '75001')),
  refunded_amount: nullable(fc.constantFrom(0, 5, 10.5, 30, 100)),
  discount_total: nullable(fc.constantFrom(0, 2.5, 10)),
  discount_pct: nullable(fc.constantFrom(0, 4.2, 12.5)),
  discount_codes: nullable(fc.constantFrom(['A'], ['A', 'B'], ['B', 'A'], [])),
  cancelled_at: nullable(fc.constantFrom(day(5), day(7), '2025-01-06T00:00:00.000001Z')),
});

const customerArb: fc.Arbitrary<CustomerRow> = fc
  .record({
    external_id: nullable(fc.constantFrom('c-1', 'c-2', 'c-3')),
    email: nullable(fc.constantFrom('ann@x.co', 'bob@x.co', 'family@x.co')),
    phone: nullable(fc.constantFrom('+15125550100', '+15125550101')),
    name: nullable(fc.constantFrom('Ann', 'Bob')),
    address: nullable(
      fc.record({
        street: nullable(fc.constantFrom('1 Main St', '2 Elm St')),
        city: nullable(fc.constantFrom('Austin', 'Dallas')),
        state: nullable(fc.constant('TX')),
        zip: nullable(fc.constantFrom('78701', '75001')),
        country: fc.constantFrom('US', 'CA'),
      }),
    ),
    consent: nullable(
      fc.record({
        marketing_email: nullable(fc.boolean()),
        sms: nullable(fc.boolean()),
        suppressed: nullable(fc.boolean()),
        bounced: nullable(fc.boolean()),
      }),
    ),
    source_label: fc.constantFrom('custom-api', 'pos'),
    subscription_status: nullable(
      fc.constantFrom<'active' | 'paused' | 'cancelled'>('active', 'paused', 'cancelled'),
    ),
    subscription_started_at: nullable(
      fc.constantFrom(
        '2024-05-01T00:00:00.000Z',
        '2024-05-01T01:00:00.000+02:00',
        '2024-03-01T00:00:00.001Z',
      ),
    ),
  })
  // A customer row without any key is refused at the gateway (skipped_no_identity).
  .filter((c) => c.external_id !== null || c.email !== null || c.phone !== null);

type Row =
  | { readonly kind: 'order'; readonly row: OrderEventRow }
  | { readonly kind: 'customer'; readonly row: CustomerRow };
const rowArb: fc.Arbitrary<Row> = fc.oneof(
  { weight: 3, arbitrary: orderArb.map((row) => ({ kind: 'order' as const, row })) },
  { weight: 1, arbitrary: customerArb.map((row) => ({ kind: 'customer' as const, row })) },
);

/**
 * Requests of 1 to 4 rows: the rows of one request share a received_at (and may repeat an order_id);
 * requests arrive a minute apart or, now and then, at the same instant.
 */
const scenarioArb = fc.record({
  requests: fc.array(
    fc.record({ rows: fc.array(rowArb, { minLength: 1, maxLength: 4 }), sameInstant: fc.boolean() }),
    {
      minLength: 1,
      maxLength: 6,
    },
  ),
  chunk: fc.integer({ min: 1, max: 8 }),
});

type Scenario = { events: Given[]; account: string };

function build(s: typeof scenarioArb extends fc.Arbitrary<infer T> ? T : never): Scenario {
  const account = crypto.randomUUID();
  let minute = 0;
  const events: Given[] = [];
  for (const r of s.requests) {
    if (!r.sameInstant || minute === 0) minute++;
    const receivedAt = new Date(Date.UTC(2025, 1, 1, 0, minute)).toISOString();
    for (const row of r.rows)
      events.push(
        row.kind === 'order'
          ? ['OrderUpserted', orderUpserted(metadata(account, receivedAt), row.row)]
          : ['CustomerUpserted', customerUpserted(metadata(account, receivedAt), row.row)],
      );
  }
  return { events, account };
}

/** The pure path: every record applied one by one with the domain's rules. */
function pure({ events, account }: Scenario) {
  const customers: CustomerState[] = [];
  const orders = new Map<string, OrderRow>();
  const resolve = (
    m: { event_id: string; received_at: string },
    keys: Parameters<typeof decideIdentity>[1],
  ) => {
    const d = decideIdentity(customers, keys);
    if (d.kind === 'refused') return null;
    if (d.kind === 'matched') return d.identity;
    const c = newCustomer(account, customerUuid(account, m.event_id), m.received_at);
    customers.push(c);
    return c;
  };
  for (const g of events) {
    if (g[0] === 'CustomerUpserted') {
      const { metadata: m, customer: r } = g[1];
      const keys = { externalId: r.external_id, email: r.email, phone: r.phone };
      const c = resolve(m, keys)!;
      mergeCustomer(
        c,
        {
          ...keys,
          name: r.name,
          address: r.address,
          consentMarketingEmail: r.consent?.marketing_email ?? null,
          consentSms: r.consent?.sms ?? null,
          consentSuppressed: r.consent?.suppressed ?? null,
          consentBounced: r.consent?.bounced ?? null,
          sourceLabel: r.source_label,
          subscriptionStatus: r.subscription_status,
          subscriptionStartedAt: r.subscription_started_at,
        },
        m.received_at,
      );
      continue;
    }
    if (g[0] !== 'OrderUpserted') continue;
    const { metadata: m, order: o } = g[1];
    const keys = { externalId: o.customer_id, email: o.email, phone: o.phone };
    let customerId: string | null = null;
    const d = decideIdentity(customers, keys);
    if (d.kind !== 'refused') {
      const c =
        d.kind === 'matched'
          ? d.identity
          : customers[
              customers.push(newCustomer(account, customerUuid(account, m.event_id), m.received_at)) - 1
            ]!;
      mergeCustomer(c, { ...keys, name: o.customer_name }, m.received_at);
      customerId = c.customerId;
    }
    const write = orderWriteOf(g[1], { accountId: account, customerId, receivedAt: m.received_at });
    orders.set(o.order_id, evolveOrder(orders.get(o.order_id) ?? null, write).row);
  }
  const iso = (v: string | null) => (v === null ? null : new Date(v).toISOString());
  return {
    orders: [...orders.values()]
      .map((r) => ({
        ...reporting(r),
        order_id: r.orderId,
        customer_id: r.customerId,
        external_customer_id: r.externalCustomerId,
        order_date: iso(r.orderDate),
        order_amount: r.orderAmount,
        product_name: r.productName,
        email: r.email,
        phone: r.phone,
        customer_name: r.customerName,
        source: r.source,
        order_channel: r.orderChannel,
        currency: r.currency,
        shipping_city: r.shippingCity,
        shipping_state: r.shippingState,
        shipping_zip: r.shippingZip,
        refunded_amount: r.refundedAmount,
        discount_total: r.discountTotal,
        discount_pct: r.discountPct,
        discount_codes: r.discountCodes,
        cancelled_at: iso(r.cancelledAt),
        acquisition_channel: acquisitionChannel(r.source),
        net_amount: netAmount(r),
        first_seen_at: iso(r.firstSeenAt),
        updated_at: iso(r.updatedAt),
      }))
      .sort((a, b) => a.order_id.localeCompare(b.order_id)),
    customers: customers
      .map((c) => ({
        customer_id: c.customerId,
        external_id: c.externalId,
        email: c.email,
        phone: c.phone,
        name: c.name,
        address_street: c.address.street,
        address_city: c.address.city,
        address_state: c.address.state,
        address_zip: c.address.zip,
        address_country: c.address.country,
        consent_marketing_email: c.consentMarketingEmail,
        consent_sms: c.consentSms,
        consent_suppressed: c.consentSuppressed,
        consent_bounced: c.consentBounced,
        source_label: c.sourceLabel,
        subscription_status: c.subscriptionStatus,
        subscription_started_at: iso(c.subscriptionStartedAt),
        created_at: iso(c.createdAt),
        updated_at: iso(c.updatedAt),
        consent_locked_email: c.consentLockedEmail,
        consent_locked_sms: c.consentLockedSms,
      }))
      .sort((a, b) => a.customer_id.localeCompare(b.customer_id)),
  };
}

/**
 * The currency columns by the domain's conversion rule: the account reports in USD (the default) and
 * no rates are imported, so USD orders are `same` and any other code converts at par.
 */
function reporting(r: OrderRow) {
  const c = conversionOn(ReferenceRates.EMPTY, r.currency, 'USD', r.orderDate);
  const order = Number(convertAmount(r.orderAmount, c));
  const refunded = Number(convertAmount(r.refundedAmount, c));
  return {
    reporting_currency: c.to,
    fx_rate: Number(c.rate),
    fx_minor_units: c.minorUnits,
    fx_rate_date: c.rateDay,
    fx_status: c.status,
    order_amount_reporting: order,
    refunded_amount_reporting: refunded,
    // Exact decimals in PostgreSQL; to the cent here.
    net_amount_reporting: r.cancelledAt === null ? Math.round((order - refunded) * 100) / 100 : 0,
  };
}

/** The SQL path's rows, in the same shape. */
async function stored(account: string) {
  const iso = (v: unknown) => (v === null ? null : (v as Date).toISOString());
  const orders = await sql.rows<Record<string, unknown>>(
    `select * from rm.orders where account_id = $1 order by order_id`,
    [account],
  );
  const customers = await sql.rows<Record<string, unknown>>(
    `select * from rm.customers where account_id = $1 order by customer_id`,
    [account],
  );
  return {
    orders: orders.map(({ account_id: _a, ...r }) => ({
      ...r,
      order_date: iso(r.order_date),
      cancelled_at: iso(r.cancelled_at),
      first_seen_at: iso(r.first_seen_at),
      updated_at: iso(r.updated_at),
    })),
    // The blind indexes are the projector's identity keys (docs/privacy.md): one exactly where the
    // value is; the pure rules resolve on the values, which match where their indexes do.
    customers: customers.map(({ account_id: _a, email_index, phone_index, ...c }) => ({
      ...c,
      ...((email_index === null) !== (c.email === null) || (phone_index === null) !== (c.phone === null)
        ? { index_mismatch: { email_index, phone_index } }
        : {}),
      subscription_started_at: iso(c.subscription_started_at),
      created_at: iso(c.created_at),
      updated_at: iso(c.updated_at),
    })),
  };
}

describe('the SQL order merge agrees with the pure rules of @holdfast/domain', () => {
  it('on random order and customer event sequences cut into random chunks', async () => {
    await fc.assert(
      fc.asyncProperty(scenarioArb, async (s) => {
        const scenario = build(s);
        await sql.apply(scenario.events, { chunk: s.chunk });
        expect(await stored(scenario.account)).toEqual(pure(scenario));
      }),
      { numRuns: 60 },
    );
  });
});
