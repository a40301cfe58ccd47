import { describe, expect, it } from 'vitest';
import { classifyOrders, type NormalizedOrder } from '@holdfast/domain';
import { healthHint } from '../../src/routes/health.js';
import { distinctIdentities, ordersDryRunResponse } from '../../src/ingest/orders-answer.js';

const order = (o: Partial<NormalizedOrder>) =>
  ({ customer_id: null, email: null, phone: null, ...o }) as NormalizedOrder;

describe('customers_upserted of an orders batch', () => {
  it('counts distinct identities: customer_id, else email, else phone', () => {
    expect(
      distinctIdentities([
        order({ customer_id: 'C1', email: 'a@x.co' }),
        order({ customer_id: 'C1', email: 'b@x.co' }),
        order({ email: 'a@x.co' }),
        order({ phone: '+16502530000' }),
        order({ email: 'a@x.co', phone: '+16502530000' }),
      ]),
    ).toBe(3);
  });
});

describe('orders dry run', () => {
  const row = (o: Record<string, unknown>) => ({
    order_id: 'A',
    customer_id: 'C',
    order_date: '2024-01-02T10:00:00Z',
    order_amount: 1,
    product_name: 'Tea',
    ...o,
  });

  it('would accept nothing when a currency would fail the whole batch', () => {
    const c = classifyOrders([row({ order_id: 'A' }), row({ order_id: 'B', currency: 'EURO' })], {
      now: new Date(0),
    });
    expect(ordersDryRunResponse(c)).toMatchObject({
      received: 2,
      would_accept: 0,
      would_drop: 2,
      errors: [{ index: 1, order_id: 'B', codes: ['invalid_currency_code_fails_whole_batch'] }],
    });
    expect(ordersDryRunResponse(c).next).toMatch(
      /^Row 1 carries a currency that is not a 3-letter ISO 4217 code/,
    );
  });
});

describe('health hint', () => {
  it('is "All set" once set up, else lists what is missing', () => {
    expect(healthHint({ customIntegration: 'active', ordersIngested: 3, storeTimezone: 'UTC' })).toBe(
      'All set. Analytics recompute nightly at 02:00 UTC; POST /ingest/sync after large loads.',
    );
    const hint = healthHint({ customIntegration: 'awaiting_setup', ordersIngested: 0, storeTimezone: null });
    expect(hint).toContain('"awaiting setup"');
    expect(hint).toContain('No orders yet');
    expect(hint).toContain('PATCH /ingest/account');
  });
});
