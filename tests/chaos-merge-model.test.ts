// The chaos benchmark's independent model of the spec's merge rules: each rule on its own, and the
// comparison that turns a disagreement with the read models into lost / duplicated / wrong findings.
import { describe, expect, it } from 'vitest';
import {
  compareReadModels,
  MergeModel,
  type CustomerRowRead,
  type OrderRow,
  type OrderRowRead,
} from '../bench/merge-model.js';

const row = (over: Partial<OrderRow> = {}): OrderRow => ({
  order_id: 'o-1',
  customer_id: 'c-1',
  order_date: '2025-01-01T00:00:00Z',
  order_amount: 100,
  product_name: 'v1',
  email: 'c-1@x.example',
  ...over,
});

describe('MergeModel orders', () => {
  it('moves refunds and cancellations forward only and keeps order_date and customer_id', () => {
    const m = new MergeModel();
    m.applyOrderBatch([row({ refunded_amount: 5 })], 0);
    m.applyOrderBatch(
      [row({ refunded_amount: 3, product_name: 'v2', order_date: '2025-02-01T00:00:00Z' })],
      1,
    );
    m.applyOrderBatch([row({ customer_id: 'c-9', cancelled_at: '2025-03-02T00:00:00Z' })], 2);
    m.applyOrderBatch([row({ cancelled_at: '2025-03-01T00:00:00Z' })], 3);
    m.applyOrderBatch([row({ cancelled_at: null, refunded_amount: null })], 4);
    const o = m.orders.get('o-1')!;
    expect(o).toMatchObject({
      refunded: 5,
      productName: 'v1',
      orderDate: Date.parse('2025-01-01T00:00:00Z'),
      externalCustomerId: 'c-1',
      cancelledAt: Date.parse('2025-03-02T00:00:00Z'),
      phase: 4,
    });
    expect(m.optionalCustomers.has('c-9')).toBe(true);
    expect(m.customers.has('c-9')).toBe(false);
  });

  it('lets the last row of an order_id in one batch win', () => {
    const m = new MergeModel();
    m.applyOrderBatch(
      [row({ product_name: 'loser', refunded_amount: 9 }), row({ product_name: 'winner' })],
      0,
    );
    expect(m.orders.get('o-1')).toMatchObject({ productName: 'winner', refunded: 0 });
  });
});

describe('MergeModel customers', () => {
  it('keeps omitted consent keys, writes addresses whole and only with street/city/zip, keeps the earliest subscription start', () => {
    const m = new MergeModel();
    m.applyCustomerBatch(
      [
        {
          external_id: 'c-1',
          name: 'A',
          consent: { marketing_email: true, sms: true },
          address: { street: '1 Main', city: 'X', state: 'OR', zip: '1' },
          subscription_status: 'active',
          subscription_started_at: '2025-01-02T00:00:00Z',
        },
        { external_id: 'c-1', consent: { sms: false }, address: { country: 'CA' } },
        {
          external_id: 'c-1',
          subscription_status: 'paused',
          subscription_started_at: '2025-01-01T00:00:00Z',
        },
        { external_id: 'c-1', subscription_started_at: '2025-01-03T00:00:00Z', address: { zip: '2' } },
      ],
      0,
    );
    expect(m.customers.get('c-1')).toMatchObject({
      name: 'A',
      marketingEmail: true,
      sms: false,
      street: null,
      city: null,
      state: null,
      zip: '2',
      country: 'US',
      subscriptionStatus: 'paused',
      subscriptionStartedAt: Date.parse('2025-01-01T00:00:00Z'),
    });
  });

  it('ignores a custom-api event whose event_type and external_id were seen before', () => {
    const m = new MergeModel();
    m.applyCustomerEvent({ event_type: 'signup', external_id: 'c-1', name: 'first' }, 0);
    m.applyCustomerEvent({ event_type: 'signup', external_id: 'c-1', name: 'second' }, 1);
    m.applyCustomerEvent({ event_type: 'update', external_id: 'c-1', consent: { suppressed: true } }, 2);
    expect(m.customers.get('c-1')).toMatchObject({ name: 'first', suppressed: true });
  });
});

describe('compareReadModels', () => {
  const customer = (over: Partial<CustomerRowRead> = {}): CustomerRowRead => ({
    customer_id: 'u-1',
    external_id: 'c-1',
    email: 'c-1@x.example',
    name: null,
    address_street: null,
    address_city: null,
    address_state: null,
    address_zip: null,
    address_country: null,
    consent_marketing_email: false,
    consent_sms: false,
    consent_suppressed: false,
    consent_bounced: false,
    subscription_status: null,
    subscription_started_at: null,
    ...over,
  });
  const order = (over: Partial<OrderRowRead> = {}): OrderRowRead => ({
    order_id: 'o-1',
    external_customer_id: 'c-1',
    customer_id: 'u-1',
    order_date: new Date('2025-01-01T00:00:00Z'),
    order_amount: '100.0000',
    product_name: 'v1',
    email: 'c-1@x.example',
    source: null,
    currency: 'USD',
    refunded_amount: '5.0000',
    cancelled_at: null,
    discount_total: null,
    ...over,
  });
  const model = () => {
    const m = new MergeModel();
    m.applyOrderBatch([row({ refunded_amount: 5 })], 3);
    return m;
  };

  it('finds nothing when the rows match', () => {
    expect(compareReadModels(model(), [order()], [customer()])).toEqual([]);
  });

  it('reports a lost, a duplicated and a wrongly merged row with the phase of their last write', () => {
    expect(compareReadModels(model(), [], [customer()]).map((f) => [f.kind, f.table, f.phase])).toEqual([
      ['lost', 'orders', 3],
    ]);
    const dup = compareReadModels(model(), [order(), order()], [customer()]);
    expect(dup.map((f) => [f.kind, f.table])).toEqual([['duplicated', 'orders']]);
    const wrong = compareReadModels(model(), [order({ refunded_amount: '3.0000' })], [customer()]);
    expect(wrong).toMatchObject([
      { kind: 'wrong', table: 'orders', detail: 'refunded_amount: want 5, got 3' },
    ]);
    const unlinked = compareReadModels(model(), [order({ customer_id: 'u-2' })], [customer()]);
    expect(unlinked[0]!.detail).toContain('customer_id (resolved)');
  });
});
