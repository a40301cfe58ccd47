import { describe, expect, it } from 'vitest';
import { copyLine } from '../copy-rows.js';
import { orderColumns, type Conversion, type OrderWrite as DomainOrderWrite } from '@holdfast/domain';
import { LWW, newOrderLine, orderValues, type OrderWrite } from './write-orders.js';

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

/**
 * The line as the generic writer makes it from the update's values, with what a first write stores
 * instead: a refund not carried as 0, the codes as an array, updated_at = received_at.
 */
const generic = (o: OrderWrite, c: Conversion = gbpToUsd) => {
  const v = orderValues(o, c);
  v[16] = o.refundedAmount ?? 0;
  v[19] = o.discountCodes;
  v.splice(22, 0, o.receivedAt);
  return copyLine(v);
};

describe('newOrderLine', () => {
  it('writes every column as the generic COPY writer does', () => {
    expect(newOrderLine(base, gbpToUsd)).toBe(generic(base));
    expect(newOrderLine(base, gbpToUsd).split('\t')).toHaveLength(29);
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
    expect(newOrderLine(bare, atPar)).toBe(generic(bare, atPar));
    expect(newOrderLine(bare, atPar).split('\t')[16]).toBe('0');
  });

  it('escapes tabs, newlines and backslashes in text and in array elements', () => {
    const odd: OrderWrite = {
      ...base,
      productName: 'Tea\tfor\ntwo \\ more\r',
      customerName: 'A "quoted" name',
      discountCodes: ['A\tB', 'back\\slash', 'quo"te'],
    };
    expect(newOrderLine(odd, gbpToUsd)).toBe(generic(odd));
    expect(newOrderLine(odd, gbpToUsd).split('\t')).toHaveLength(29);
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
});
