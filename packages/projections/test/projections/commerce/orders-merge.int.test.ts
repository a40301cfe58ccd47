import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createTestEnv, type TestEnv } from '@holdfast/testing';
import { metadata, orderRow, orderUpserted } from '@holdfast/testing/events';
import { MergeFixture } from '../../test-support/merge-fixture.js';
import type { Given } from '../../test-support/projection-harness.js';
import { wireCommerce } from '../../../src/projections/commerce/commerce.projection.js';
import { customerUuid } from '../../../src/projections/commerce/customer-id.js';

let t: TestEnv;
let f: MergeFixture;

beforeAll(async () => {
  t = await createTestEnv('ordersmerge');
  f = await MergeFixture.create(t, 'om', wireCommerce());
});
afterAll(() => t.close());

const at = (minute: number) => new Date(Date.UTC(2025, 0, 1, 0, minute)).toISOString();
const order = (account: string, minute: number, over: Parameters<typeof orderRow>[0]): Given => [
  'OrderUpserted',
  orderUpserted(metadata(account, at(minute)), orderRow(over)),
];

async function orderOf(account: string, orderId = 'o-1') {
  const [row] = await f.whole.rows<Record<string, unknown>>(
    `select * from rm.orders where account_id = $1 and order_id = $2`,
    [account, orderId],
  );
  return row!;
}

describe('orders projection', () => {
  it('stores every field of the order row, the resolved customer and event times', async () => {
    const a = f.account();
    const m = metadata(a, '2025-01-02T03:04:05.678Z');
    await f.given([
      'OrderUpserted',
      orderUpserted(
        m,
        orderRow({
          order_id: 'o-1',
          customer_id: 'c-42',
          order_date: '2024-12-24T18:30:00.000Z',
          order_amount: 129.99,
          product_name: 'Kettle\t"2L"\\ \nsteel',
          email: 'ann@example.com',
          phone: '+15125550100',
          customer_name: 'Ann',
          source: 'email',
          order_channel: 'web',
          currency: 'EUR',
          shipping_city: 'Austin',
          shipping_state: 'TX',
          shipping_zip: '78701',
          refunded_amount: 10,
          discount_total: 5.5,
          discount_pct: 4.2,
          discount_codes: ['XMAS', 'A "quoted" code'],
          cancelled_at: null,
        }),
      ),
    ]);
    const row = await orderOf(a);
    expect(row).toMatchObject({
      customer_id: customerUuid(a, m.event_id),
      external_customer_id: 'c-42',
      order_date: new Date('2024-12-24T18:30:00.000Z'),
      order_amount: 129.99,
      product_name: 'Kettle\t"2L"\\ \nsteel',
      email: 'ann@example.com',
      phone: '+15125550100',
      customer_name: 'Ann',
      source: 'email',
      order_channel: 'web',
      currency: 'EUR',
      shipping_city: 'Austin',
      shipping_state: 'TX',
      shipping_zip: '78701',
      refunded_amount: 10,
      discount_total: 5.5,
      discount_pct: 4.2,
      discount_codes: ['XMAS', 'A "quoted" code'],
      cancelled_at: null,
      net_amount: 119.99,
      first_seen_at: new Date('2025-01-02T03:04:05.678Z'),
      updated_at: new Date('2025-01-02T03:04:05.678Z'),
    });
  });

  it('stores the acquisition channel (rule 10): the source label, or campaign for a full landing URL, with the original source kept; last write wins', async () => {
    const a = f.account();
    const url = 'https://shop.example.com/tea?utm_source=holdfast&utm_content=t_1';
    await f.given(
      order(a, 1, { order_id: 'o-1', source: 'paid_social' }),
      order(a, 2, { order_id: 'o-2', source: url }),
      order(a, 3, { order_id: 'o-3', source: null }),
      order(a, 4, { order_id: 'o-4', source: 'organic' }),
      order(a, 5, { order_id: 'o-4', source: url }),
    );
    expect(await orderOf(a, 'o-1')).toMatchObject({
      source: 'paid_social',
      acquisition_channel: 'paid_social',
    });
    expect(await orderOf(a, 'o-2')).toMatchObject({ source: url, acquisition_channel: 'campaign' });
    expect(await orderOf(a, 'o-3')).toMatchObject({ source: null, acquisition_channel: null });
    expect(await orderOf(a, 'o-4')).toMatchObject({ source: url, acquisition_channel: 'campaign' });
  });

  it('moves refunded_amount forward only; a re-post without it keeps it (and changes nothing)', async () => {
    const a = f.account();
    await f.given(
      order(a, 1, { order_id: 'o-1', refunded_amount: 10 }),
      order(a, 2, { order_id: 'o-1', refunded_amount: 30 }),
      order(a, 3, { order_id: 'o-1', refunded_amount: 20 }),
      order(a, 4, { order_id: 'o-1', refunded_amount: null }),
    );
    // updated_at is the received_at of the last record that changed the row.
    expect(await orderOf(a)).toMatchObject({
      refunded_amount: 30,
      net_amount: 70,
      updated_at: new Date(at(2)),
    });
  });

  it('moves cancelled_at forward only; null never un-cancels', async () => {
    const a = f.account();
    await f.given(
      order(a, 1, { order_id: 'o-1', cancelled_at: '2025-01-05T00:00:00.000Z' }),
      order(a, 2, { order_id: 'o-1', cancelled_at: '2025-01-07T00:00:00.000Z' }),
      order(a, 3, { order_id: 'o-1', cancelled_at: '2025-01-06T00:00:00.000Z' }),
      order(a, 4, { order_id: 'o-1', cancelled_at: null }),
    );
    expect(await orderOf(a)).toMatchObject({
      cancelled_at: new Date('2025-01-07T00:00:00.000Z'),
      net_amount: 0,
    });
  });

  it('never changes order_date or the customer after the first write', async () => {
    const a = f.account();
    const first = metadata(a, at(1));
    await f.given(
      [
        'OrderUpserted',
        orderUpserted(
          first,
          orderRow({ order_id: 'o-1', customer_id: 'c-1', order_date: '2024-01-01T00:00:00.000Z' }),
        ),
      ],
      order(a, 2, { order_id: 'o-1', customer_id: 'c-2', order_date: '2024-02-02T00:00:00.000Z' }),
    );
    expect(await orderOf(a)).toMatchObject({
      order_date: new Date('2024-01-01T00:00:00.000Z'),
      external_customer_id: 'c-1',
      customer_id: customerUuid(a, first.event_id),
      first_seen_at: new Date(at(1)),
    });
    // The identity the re-post carried is upserted all the same.
    const customers = await f.whole.rows(
      `select external_id from rm.customers where account_id = $1 order by external_id`,
      [a],
    );
    expect(customers).toEqual([{ external_id: 'c-1' }, { external_id: 'c-2' }]);
  });

  it('converts into the reporting currency at the first-written order date, following the currency (last write wins) and refunds', async () => {
    // Published ECB rates of 2 January 2024 (USD 1.0956, GBP 0.86645).
    await t.pool.query(`insert into fx.imports (source, sha256, days, rates_added, rates_known)
                        values ('test', 'x', 1, 2, 0)`);
    await t.pool.query(`insert into fx.rates (currency, rate_date, per_eur, import_id)
                        select c, '2024-01-02', v, (select max(id) from fx.imports)
                          from (values ('USD', 1.0956), ('GBP', 0.86645)) as r(c, v)
                        on conflict do nothing`);
    await t.pool.query(`update fx.version set version = version + 1`);
    const a = f.account();
    await f.given(
      order(a, 1, {
        order_id: 'o-1',
        order_date: '2024-01-02T10:00:00.000Z',
        order_amount: 100,
        currency: 'EUR',
      }),
      // A re-post in another currency that also carries another order_date: the stored date stays, and
      // the new currency converts at it.
      order(a, 2, {
        order_id: 'o-1',
        order_date: '2023-12-29T10:00:00.000Z',
        order_amount: 100,
        currency: 'GBP',
        refunded_amount: 12.5,
      }),
    );
    expect(await orderOf(a)).toMatchObject({
      order_date: new Date('2024-01-02T10:00:00.000Z'),
      currency: 'GBP',
      reporting_currency: 'USD',
      fx_status: 'converted',
      order_amount_reporting: 126.45, // 100 × 1.0956 / 0.86645
      refunded_amount_reporting: 15.81,
      net_amount_reporting: 110.64,
    });
    const [day] = await f.whole.rows<{ d: string }>(
      `select fx_rate_date::text as d from rm.orders where account_id = $1`,
      [a],
    );
    expect(day).toEqual({ d: '2024-01-02' });
  });

  it('lets the last write win for every other field, nulls included', async () => {
    const a = f.account();
    await f.given(
      order(a, 1, {
        order_id: 'o-1',
        order_amount: 50,
        product_name: 'Tea',
        source: 'email',
        discount_codes: ['A'],
        shipping_city: 'Austin',
      }),
      order(a, 2, {
        order_id: 'o-1',
        order_amount: 55,
        product_name: 'Green tea',
        source: null,
        discount_codes: null,
        shipping_city: 'Dallas',
      }),
    );
    expect(await orderOf(a)).toMatchObject({
      order_amount: 55,
      product_name: 'Green tea',
      source: null,
      discount_codes: null,
      shipping_city: 'Dallas',
    });
  });

  it('keeps the last row of an order_id within one batch', async () => {
    const a = f.account();
    // f.given applies these as one chunk and one by one; both must agree.
    await f.given(
      order(a, 1, { order_id: 'o-1', product_name: 'v1', refunded_amount: 5 }),
      order(a, 1, { order_id: 'o-2', product_name: 'other' }),
      order(a, 1, { order_id: 'o-1', product_name: 'v2', refunded_amount: 1 }),
      order(a, 1, { order_id: 'o-1', product_name: 'v3' }),
    );
    expect(await orderOf(a)).toMatchObject({ product_name: 'v3', refunded_amount: 5 });
    expect(await orderOf(a, 'o-2')).toMatchObject({ product_name: 'other' });
  });

  it('converges to the same row whatever order the re-posts arrive in', async () => {
    const versions = [
      { order_id: 'o-1', refunded_amount: 10, cancelled_at: null },
      { order_id: 'o-1', refunded_amount: 25, cancelled_at: null },
      { order_id: 'o-1', refunded_amount: null, cancelled_at: '2025-03-01T00:00:00.000Z' },
    ];
    const permutations = [
      [0, 1, 2],
      [0, 2, 1],
      [1, 0, 2],
      [1, 2, 0],
      [2, 0, 1],
      [2, 1, 0],
    ];
    const results = [];
    for (const p of permutations) {
      const a = f.account();
      await f.given(...p.map((i, k) => order(a, k, versions[i]!)));
      const row = await orderOf(a);
      results.push({
        refunded: row.refunded_amount,
        cancelled: row.cancelled_at,
        net: row.net_amount,
        date: row.order_date,
      });
    }
    for (const r of results) expect(r).toEqual(results[0]);
    expect(results[0]).toMatchObject({ refunded: 25, net: 0 });
  });

  it('derives net revenue (gross minus refunds, cancelled excluded) in one query', async () => {
    const a = f.account();
    await f.given(
      order(a, 1, { order_id: 'o-1', order_amount: 100, refunded_amount: 20 }),
      order(a, 1, { order_id: 'o-2', order_amount: 50 }),
      order(a, 1, { order_id: 'o-3', order_amount: 70, cancelled_at: '2025-01-02T00:00:00.000Z' }),
    );
    const [row] = await f.whole.rows(
      `select sum(order_amount) as gross, sum(refunded_amount) filter (where cancelled_at is null) as refunds,
              sum(net_amount) as net
       from rm.orders where account_id = $1`,
      [a],
    );
    expect(row).toEqual({ gross: 220, refunds: 20, net: 130 });
  });
});
