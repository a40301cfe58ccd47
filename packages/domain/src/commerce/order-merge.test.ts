import { describe, expect, it } from 'vitest';
import {
  evolveOrders,
  firstWriteValue,
  netAmount,
  orderWriteOf,
  orderColumns,
  ORDER_COLUMN_RULES,
  type OrderRow,
  type OrderWrite,
} from './order-merge.js';

const A = 'a';
const at = (minute: number) => new Date(Date.UTC(2025, 0, 1, 0, minute)).toISOString();
let minute = 0;
const write = (over: Partial<OrderWrite> = {}): OrderWrite => ({
  accountId: A,
  orderId: 'o-1',
  customerId: 'cust-1',
  externalCustomerId: 'c-1',
  orderDate: '2024-12-24T18:30:00.000Z',
  orderAmount: 100,
  productName: 'Tea',
  email: 'ann@example.com',
  phone: null,
  customerName: null,
  source: 'email',
  orderChannel: null,
  currency: 'USD',
  shippingCity: null,
  shippingState: null,
  shippingZip: null,
  refundedAmount: null,
  discountTotal: null,
  discountPct: null,
  discountCodes: null,
  cancelledAt: null,
  receivedAt: at(++minute),
  ...over,
});

/** given(writes).when(writes).then(row of o-1): every write applied in log order. */
const given = (...before: OrderWrite[]) => ({
  when: (...after: OrderWrite[]) => ({
    then: (expected: Partial<OrderRow>) => {
      const rows = evolveOrders(evolveOrders(new Map(), before), after);
      expect(rows.get(`${A}\u0000o-1`)).toMatchObject(expected);
    },
  }),
});

describe('order merge (spec: "Order merge rules")', () => {
  it('a first write stores the row; a refund not carried is 0', () => {
    const w = write();
    given().when(w).then({ refundedAmount: 0, firstSeenAt: w.receivedAt, updatedAt: w.receivedAt });
  });

  it.each([
    ['forward', [10], 30, 30],
    ['backward is ignored', [30], 20, 30],
    ['not carried keeps', [30], null, 30],
    ['cumulative over several', [5, 10, 25], 15, 25],
  ] as const)('refunded_amount moves forward only: %s', (_, before, refund, expected) => {
    given(...before.map((r) => write({ refundedAmount: r })))
      .when(write({ refundedAmount: refund }))
      .then({ refundedAmount: expected });
  });

  it.each([
    ['a first cancellation', [null], '2025-01-05T00:00:00.000Z', '2025-01-05T00:00:00.000Z'],
    [
      'later moves forward',
      ['2025-01-05T00:00:00.000Z'],
      '2025-01-07T00:00:00.000Z',
      '2025-01-07T00:00:00.000Z',
    ],
    [
      'earlier is ignored',
      ['2025-01-07T00:00:00.000Z'],
      '2025-01-06T00:00:00.000Z',
      '2025-01-07T00:00:00.000Z',
    ],
    ['null never un-cancels', ['2025-01-07T00:00:00.000Z'], null, '2025-01-07T00:00:00.000Z'],
  ] as const)('cancelled_at moves forward only: %s', (_, before, cancelled, expected) => {
    given(...before.map((c) => write({ cancelledAt: c })))
      .when(write({ cancelledAt: cancelled }))
      .then({ cancelledAt: expected });
  });

  it('order_date and the customer never change after the first write', () => {
    given(write({ orderDate: '2024-01-01T00:00:00.000Z', customerId: 'cust-1', externalCustomerId: 'c-1' }))
      .when(write({ orderDate: '2024-02-02T00:00:00.000Z', customerId: 'cust-2', externalCustomerId: 'c-2' }))
      .then({ orderDate: '2024-01-01T00:00:00.000Z', customerId: 'cust-1', externalCustomerId: 'c-1' });
  });

  it('every other field: the last write wins, nulls included', () => {
    given(write({ orderAmount: 50, source: 'email', discountCodes: ['A'], shippingCity: 'Austin' }))
      .when(write({ orderAmount: 55, source: null, discountCodes: null, shippingCity: 'Dallas' }))
      .then({ orderAmount: 55, source: null, discountCodes: null, shippingCity: 'Dallas' });
  });

  it('a duplicate order_id inside one batch: the last row wins (forward-only rules still hold)', () => {
    const t = at(++minute);
    given()
      .when(
        write({ productName: 'v1', refundedAmount: 5, receivedAt: t }),
        write({ productName: 'v2', refundedAmount: 1, receivedAt: t }),
        write({ productName: 'v3', receivedAt: t }),
      )
      .then({ productName: 'v3', refundedAmount: 5 });
  });

  it('a re-post that repeats what is stored changes nothing, updated_at included', () => {
    const first = write({ refundedAmount: 10 });
    given(first)
      .when(write({ refundedAmount: 10 }), write({ refundedAmount: null }))
      .then({ updatedAt: first.receivedAt });
  });

  it('converges whatever order refunds and cancellations arrive in', () => {
    const versions = [
      { refundedAmount: 10 },
      { refundedAmount: 25 },
      { cancelledAt: '2025-03-01T00:00:00.000Z' },
    ];
    const rows = [
      [0, 1, 2],
      [2, 1, 0],
      [1, 2, 0],
    ].map((p) =>
      evolveOrders(new Map(), [write(), ...p.map((i) => write({ ...versions[i] }))]).get(`${A}\u0000o-1`),
    );
    for (const r of rows)
      expect(r).toMatchObject({ refundedAmount: 25, cancelledAt: '2025-03-01T00:00:00.000Z' });
  });

  it.each([
    [100, 20, null, 80],
    [100, 0, '2025-01-02T00:00:00.000Z', 0],
    [19.99, 19.99, null, 0],
  ] as const)(
    'net amount of %d refunded %d cancelled %s is %d',
    (orderAmount, refundedAmount, cancelledAt, net) => {
      expect(netAmount({ orderAmount, refundedAmount, cancelledAt })).toBe(net);
    },
  );

  it('declares one rule per column, in the table order', () => {
    expect(orderColumns('first_write')).toEqual(['customer_id', 'external_customer_id', 'order_date']);
    expect(orderColumns('forward_only')).toEqual(['refunded_amount', 'cancelled_at']);
    expect(new Set(ORDER_COLUMN_RULES.map((r) => r.column)).size).toBe(ORDER_COLUMN_RULES.length);
  });
});

describe('an OrderUpserted as a write (orderWriteOf)', () => {
  // Every field distinct, so a field read from the wrong column shows.
  const order = {
    order_id: 'o-9',
    customer_id: 'ext-9',
    order_date: '2024-01-02T03:04:05.000Z',
    order_amount: 12.34,
    product_name: 'Kettle',
    email: 'e@example.com',
    phone: '+15125550100',
    customer_name: 'Bo',
    source: 'newsletter',
    order_channel: 'pos',
    currency: 'EUR',
    shipping_city: 'Lyon',
    shipping_state: 'ARA',
    shipping_zip: '69001',
    refunded_amount: 1.5,
    discount_total: 2.5,
    discount_pct: 0.2,
    discount_codes: ['X'],
    cancelled_at: '2024-02-01T00:00:00.000Z',
  };
  const w = orderWriteOf({ order }, { accountId: A, customerId: 'cust-9', receivedAt: at(0) });

  it.each(
    ORDER_COLUMN_RULES.filter((r) => r.column !== 'customer_id' && r.column !== 'external_customer_id'),
  )('given the event, when written, then $field comes from the event field $column', (r) => {
    expect(w[r.field]).toEqual(order[r.column as keyof typeof order]);
  });

  it("keeps the resolved customer and stores the merchant's customer id as external_customer_id", () => {
    expect(w).toMatchObject({
      customerId: 'cust-9',
      externalCustomerId: 'ext-9',
      accountId: A,
      orderId: 'o-9',
    });
    expect(w.receivedAt).toBe(at(0));
  });
});

describe('first writes (firstWriteValue)', () => {
  it.each(ORDER_COLUMN_RULES)('given a write without $field, a first write stores the spec value', (r) => {
    const bare = write({ [r.field]: null });
    const expected = r.column === 'refunded_amount' ? 0 : null;
    expect(firstWriteValue(r, bare)).toBe(expected);
  });
});
