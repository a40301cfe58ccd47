import { describe, expect, it } from 'vitest';
import {
  ORDER_COLUMN_RULES,
  orderColumns,
  type Conversion,
  type OrderWrite as DomainOrderWrite,
} from '@holdfast/domain';
import {
  LWW,
  newOrderLine,
  orderValues,
  WRITE_COLUMNS,
  type OrderWrite,
} from '../../../src/projections/commerce/write-orders.js';

const gbpToUsd: Conversion = {
  to: 'USD',
  rate: '1.271503365744',
  rateDay: '2023-12-29',
  status: 'converted',
  minorUnits: 2,
};
const atPar: Conversion = { to: 'JPY', rate: '1', rateDay: null, status: 'unknown_currency', minorUnits: 0 };

const base: OrderWrite = {
  accountId: '6f1c2d1e-0000-4000-8000-000000000001',
  orderId: 'o-1',
  customerId: '7a1c2d1e-0000-4000-8000-000000000002',
  externalCustomerId: 'c-1',
  orderDate: '2024-06-01T10:00:00.000Z',
  orderAmount: 12.5,
  productName: 'Tea',
  email: 'a@x.co',
  phone: '+15125550100',
  customerName: 'Ann',
  source: 'organic',
  acquisitionChannel: 'organic',
  orderChannel: 'web',
  currency: 'EUR',
  shippingCity: 'Austin',
  shippingState: 'TX',
  shippingZip: '78701',
  refundedAmount: 1.25,
  discountTotal: 2,
  discountPct: 0.1,
  discountCodes: ['SAVE10', 'VIP'],
  cancelledAt: '2024-06-02T00:00:00.000Z',
  receivedAt: '2025-01-01T00:00:00.000123Z',
};

describe('newOrderLine', () => {
  it('given a full write, writes the row as a first write stores it, in COPY column order', () => {
    expect(newOrderLine(base, gbpToUsd)).toBe(
      [
        base.accountId,
        'o-1',
        base.customerId,
        'c-1',
        '2024-06-01T10:00:00.000Z',
        '12.5',
        'Tea',
        'a@x.co',
        '+15125550100',
        'Ann',
        'organic',
        'web',
        'EUR',
        'Austin',
        'TX',
        '78701',
        '1.25',
        '2',
        '0.1',
        '{"SAVE10","VIP"}',
        '2024-06-02T00:00:00.000Z',
        // first_seen_at, updated_at: received_at
        '2025-01-01T00:00:00.000123Z',
        '2025-01-01T00:00:00.000123Z',
        'organic',
        'USD',
        '1.271503365744',
        '2',
        '2023-12-29',
        'converted',
      ].join('\t') + '\n',
    );
  });

  it('writes absent values as \\N and a refund not carried as 0', () => {
    const bare: OrderWrite = {
      ...base,
      customerId: null,
      externalCustomerId: null,
      email: null,
      phone: null,
      customerName: null,
      source: null,
      acquisitionChannel: null,
      orderChannel: null,
      shippingCity: null,
      shippingState: null,
      shippingZip: null,
      refundedAmount: null,
      discountTotal: null,
      discountPct: null,
      discountCodes: null,
      cancelledAt: null,
    };
    const fields = newOrderLine(bare, atPar).slice(0, -1).split('\t');
    const at = (column: string) => fields[WRITE_COLUMNS.findIndex((c) => c.column === column)];
    expect(fields).toHaveLength(WRITE_COLUMNS.length);
    expect(at('refunded_amount')).toBe('0');
    for (const column of ['customer_id', 'email', 'discount_codes', 'cancelled_at', 'fx_rate_date'])
      expect(at(column)).toBe('\\N');
  });

  it('escapes tabs, newlines and backslashes in text and in array elements', () => {
    const odd: OrderWrite = {
      ...base,
      productName: 'Tea\tfor\ntwo \\ more\r',
      discountCodes: ['A\tB', 'back\\slash', 'quo"te'],
    };
    const fields = newOrderLine(odd, gbpToUsd).slice(0, -1).split('\t');
    expect(fields).toHaveLength(WRITE_COLUMNS.length);
    expect(fields[6]).toBe('Tea\\tfor\\ntwo \\\\ more\\r');
    expect(fields[19]).toBe('{"A\\tB","back\\\\\\\\slash","quo\\\\"te"}');
  });
});

describe('the SQL merge and the domain rules', () => {
  it('updates last-write-wins exactly the columns the domain declares last_write', () => {
    // acquisition_channel is derived from source (the domain's acquisitionChannel), so it follows it.
    expect(LWW).toEqual([...orderColumns('last_write'), 'acquisition_channel']);
  });

  it('takes the order write the domain rules take', () => {
    const write: DomainOrderWrite = base;
    expect(write.orderId).toBe('o-1');
  });

  it("writes every merged column of the domain once, then the projector's own", () => {
    const columns = WRITE_COLUMNS.map((c) => c.column);
    expect(new Set(columns).size).toBe(columns.length);
    expect(columns.slice(2, 2 + ORDER_COLUMN_RULES.length)).toEqual(ORDER_COLUMN_RULES.map((r) => r.column));
  });

  it('passes the update one value per column, arrays as literals', () => {
    const values = orderValues(base, gbpToUsd);
    expect(values).toHaveLength(WRITE_COLUMNS.length);
    expect(values[WRITE_COLUMNS.findIndex((c) => c.column === 'discount_codes')]).toBe('{"SAVE10","VIP"}');
    const refunded = WRITE_COLUMNS.findIndex((c) => c.column === 'refunded_amount');
    expect(orderValues({ ...base, refundedAmount: null }, gbpToUsd)[refunded]).toBe(0);
  });
});
