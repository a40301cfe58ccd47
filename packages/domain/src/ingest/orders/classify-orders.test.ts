import type { OrderRowInput } from '@holdfast/contracts';
import { describe, expect, it } from 'vitest';
import { classifyOrders } from './classify-orders.js';
import type { NormalizedOrder } from './normalized-order.js';

const now = new Date('2024-06-01T00:00:00Z');
const row = (overrides: Record<string, unknown> = {}): OrderRowInput => ({
  order_id: 'A1',
  customer_id: 'C1',
  order_date: '2024-01-02T10:00:00Z',
  order_amount: 12.5,
  product_name: 'Tea',
  ...overrides,
});
const given = (...rows: OrderRowInput[]) => ({ whenClassified: () => classifyOrders(rows, { now }) });

const normalized = (overrides: Partial<NormalizedOrder> = {}): NormalizedOrder => ({
  order_id: 'A1',
  customer_id: 'C1',
  order_date: '2024-01-02T10:00:00.000Z',
  order_amount: 12.5,
  product_name: 'Tea',
  email: null,
  phone: null,
  customer_name: null,
  source: null,
  order_channel: null,
  currency: 'USD',
  shipping_city: null,
  shipping_state: null,
  shipping_zip: null,
  refunded_amount: null,
  discount_total: null,
  discount_pct: null,
  discount_codes: null,
  cancelled_at: null,
  ...overrides,
});

describe('classifyOrders', () => {
  it('given a full row, when classified, then every field is normalised', () => {
    const result = given(
      row({
        order_date: '2024-01-02T05:00:00-05:00',
        email: '  Ann@Example.COM ',
        phone: '(415) 555-0132',
        customer_name: 'Ann',
        source: 'email',
        order_channel: 'web',
        currency: 'eur',
        shipping_city: 'Austin',
        shipping_state: 'TX',
        shipping_zip: '78701',
        refunded_amount: 2,
        discount_total: 1.5,
        discount_pct: 10,
        discount_codes: ['SAVE10'],
        cancelled_at: '2024-01-03T00:00:00+01:00',
      }),
    ).whenClassified();
    expect(result.accepted).toEqual([
      normalized({
        email: 'ann@example.com',
        phone: '+14155550132',
        customer_name: 'Ann',
        source: 'email',
        order_channel: 'web',
        currency: 'EUR',
        shipping_city: 'Austin',
        shipping_state: 'TX',
        shipping_zip: '78701',
        refunded_amount: 2,
        discount_total: 1.5,
        discount_pct: 10,
        discount_codes: ['SAVE10'],
        cancelled_at: '2024-01-02T23:00:00.000Z',
      }),
    ]);
    expect(result.counters).toEqual({
      received: 1,
      distinct_order_ids: 1,
      deduped_in_batch: 0,
      accepted: 1,
      dropped_invalid: 0,
      dropped_suppressed: 0,
      naive_timestamps: 0,
    });
    expect(result.errors).toEqual([]);
    expect(result.warnings).toEqual([]);
    expect(result.batchFailure).toBeNull();
  });

  it.each([
    ['blank customer_id, email, phone', { customer_id: ' ', email: '', phone: '  ' }, ['no_usable_identity']],
    ['blank customer_id, no email or phone', { customer_id: '' }, ['no_usable_identity']],
    [
      'blank customer_id and an invalid phone',
      { customer_id: '', phone: '555-1234' },
      ['no_usable_identity'],
    ],
    ['unparseable order_date', { order_date: '02/01/2024' }, ['unparseable_order_date_or_amount']],
    ['impossible order_date', { order_date: '2024-02-30T00:00:00Z' }, ['unparseable_order_date_or_amount']],
    ['negative order_amount', { order_amount: -1 }, ['unparseable_order_date_or_amount']],
    ['NaN order_amount', { order_amount: NaN }, ['unparseable_order_date_or_amount']],
    ['infinite order_amount', { order_amount: Infinity }, ['unparseable_order_date_or_amount']],
    ['4-letter currency', { currency: 'USDX' }, ['invalid_currency_code_fails_whole_batch']],
    ['2-letter currency', { currency: 'US' }, ['invalid_currency_code_fails_whole_batch']],
    ['numeric currency', { currency: '840' }, ['invalid_currency_code_fails_whole_batch']],
    [
      'every problem at once',
      { customer_id: '', order_date: 'x', currency: 'dollars' },
      ['no_usable_identity', 'unparseable_order_date_or_amount', 'invalid_currency_code_fails_whole_batch'],
    ],
  ])('given a row with %s, when classified, then it is dropped with its codes', (_case, overrides, codes) => {
    const result = given(row(), row({ order_id: 'B2', ...overrides })).whenClassified();
    expect(result.errors).toEqual([{ index: 1, order_id: 'B2', codes }]);
    expect(result.counters).toMatchObject({
      received: 2,
      accepted: 1,
      dropped_invalid: 1,
      distinct_order_ids: 2,
    });
    expect(result.accepted.map((o) => o.order_id)).toEqual(['A1']);
  });

  it.each([
    ['email only', { customer_id: '', email: 'a@b.co' }, { customer_id: null, email: 'a@b.co' }],
    [
      'phone only',
      { customer_id: ' ', phone: '+1 212 555 0100' },
      { customer_id: null, phone: '+12125550100' },
    ],
    ['customer_id kept verbatim', { customer_id: ' C 9 ' }, { customer_id: ' C 9 ' }],
    ['invalid phone with customer_id', { phone: '12' }, { phone: null }],
    ['international phone', { phone: '+44 20 7946 0958' }, { phone: '+442079460958' }],
    ['zero amount', { order_amount: 0 }, { order_amount: 0 }],
  ])(
    'given a row with %s, when classified, then it is accepted with identity normalised',
    (_case, overrides, expected) => {
      expect(given(row(overrides)).whenClassified().accepted).toEqual([normalized(expected)]);
    },
  );

  it.each([
    [undefined, 'USD'],
    [null, 'USD'],
    ['', 'USD'],
    ['usd', 'USD'],
    ['Cad', 'CAD'],
    ['XYZ', 'XYZ'],
    [' gbp ', 'GBP'],
  ])('given currency %j, when classified, then it is stored as %s', (currency, stored) => {
    expect(given(row({ currency })).whenClassified().accepted[0]?.currency).toBe(stored);
  });

  it('given rows with an invalid currency, when classified, then the batch fails with every offending index', () => {
    const result = given(
      row(),
      row({ order_id: 'B', currency: 'EURO' }),
      row({ order_id: 'C', currency: 'X' }),
    ).whenClassified();
    expect(result.batchFailure).toEqual({ code: 'invalid_currency_code_fails_whole_batch', indexes: [1, 2] });
  });

  it('given a naive order_date, when classified, then it is read as UTC, counted and warned about', () => {
    const result = given(
      row({ order_date: '2024-01-02T10:00:00' }),
      row({ order_id: 'B', order_date: '2024-01-03' }),
    ).whenClassified();
    expect(result.accepted.map((o) => o.order_date)).toEqual([
      '2024-01-02T10:00:00.000Z',
      '2024-01-03T00:00:00.000Z',
    ]);
    expect(result.counters.naive_timestamps).toBe(2);
    expect(result.warnings).toEqual([
      { index: 0, order_id: 'A1', code: 'naive_timestamp_read_as_utc' },
      { index: 1, order_id: 'B', code: 'naive_timestamp_read_as_utc' },
    ]);
  });

  it.each([
    ['2024-01-03T00:00:00Z', '2024-01-03T00:00:00.000Z'],
    ['2024-01-03T00:00:00', '2024-01-03T00:00:00.000Z'],
    ['not a date', null],
    [null, null],
  ])(
    'given cancelled_at %j, when classified, then it is stored as %j (the row is kept)',
    (cancelledAt, stored) => {
      const result = given(row({ cancelled_at: cancelledAt })).whenClassified();
      expect(result.accepted[0]?.cancelled_at).toBe(stored);
      expect(result.counters.naive_timestamps).toBe(0);
    },
  );

  it('given unknown fields, when classified, then they are discarded and listed in the warning', () => {
    const result = given(row({ line_items: [], landing_url: 'https://x' })).whenClassified();
    expect(result.accepted).toEqual([normalized()]);
    expect(result.warnings).toEqual([
      { index: 0, order_id: 'A1', code: 'unknown_fields_ignored', fields: ['line_items', 'landing_url'] },
    ]);
  });

  it('given duplicates of an order_id, when classified, then the last row wins at the first position', () => {
    const result = given(
      row({ order_amount: 1 }),
      row({ order_id: 'B' }),
      row({ order_amount: 2 }),
      row({ order_amount: 3, extra: true }),
    ).whenClassified();
    expect(result.accepted.map((o) => [o.order_id, o.order_amount])).toEqual([
      ['A1', 3],
      ['B', 12.5],
    ]);
    expect(result.counters).toEqual({
      received: 4,
      distinct_order_ids: 2,
      deduped_in_batch: 2,
      accepted: 2,
      dropped_invalid: 0,
      dropped_suppressed: 0,
      naive_timestamps: 0,
    });
    expect(result.warnings).toEqual([
      { index: 0, order_id: 'A1', code: 'duplicate_in_batch_last_wins' },
      { index: 2, order_id: 'A1', code: 'duplicate_in_batch_last_wins' },
      { index: 3, order_id: 'A1', code: 'unknown_fields_ignored', fields: ['extra'] },
    ]);
  });

  it('given a valid row then an invalid duplicate, when classified, then the valid row is kept and the invalid one dropped', () => {
    const result = given(row({ order_amount: 1 }), row({ order_date: 'bad' })).whenClassified();
    expect(result.accepted.map((o) => o.order_amount)).toEqual([1]);
    expect(result.counters).toEqual({
      received: 2,
      distinct_order_ids: 1,
      deduped_in_batch: 0,
      accepted: 1,
      dropped_invalid: 1,
      dropped_suppressed: 0,
      naive_timestamps: 0,
    });
  });

  it('given a superseded naive row, when classified, then only the duplicate warning is reported for it', () => {
    const result = given(row({ order_date: '2024-01-02' }), row()).whenClassified();
    expect(result.counters.naive_timestamps).toBe(0);
    expect(result.warnings).toEqual([{ index: 0, order_id: 'A1', code: 'duplicate_in_batch_last_wins' }]);
  });

  it('given the same phone on many rows, when classified, then each row gets the same E.164 number', () => {
    const rows = Array.from({ length: 5 }, (_, i) =>
      row({ order_id: `O${i}`, customer_id: '', phone: '212-555-0100' }),
    );
    expect(
      new Set(
        given(...rows)
          .whenClassified()
          .accepted.map((o) => o.phone),
      ),
    ).toEqual(new Set(['+12125550100']));
  });

  it('given the counters, when classified, then received = accepted + dropped_invalid + deduped_in_batch', () => {
    const { counters } = given(
      row(),
      row(),
      row({ order_id: 'B', customer_id: '' }),
      row({ order_id: 'C' }),
    ).whenClassified();
    expect(counters.accepted + counters.dropped_invalid + counters.deduped_in_batch).toBe(counters.received);
    expect(counters).toEqual({
      received: 4,
      distinct_order_ids: 3,
      deduped_in_batch: 1,
      accepted: 2,
      dropped_invalid: 1,
      dropped_suppressed: 0,
      naive_timestamps: 0,
    });
  });

  it('given an empty batch, when classified, then every counter is zero', () => {
    expect(given().whenClassified().counters).toEqual({
      received: 0,
      distinct_order_ids: 0,
      deduped_in_batch: 0,
      accepted: 0,
      dropped_invalid: 0,
      dropped_suppressed: 0,
      naive_timestamps: 0,
    });
  });

  it('given the input rows, when classified, then they are not mutated and outputs do not alias them', () => {
    const input = row({ discount_codes: ['A'] });
    const result = given(input).whenClassified();
    result.accepted[0]!.discount_codes!.push('B');
    expect(input.discount_codes).toEqual(['A']);
  });
});
