import { describe, expect, it } from 'vitest';
import { summarizeCustomer, summarizeOrders } from './summary.js';
import type { OrderInput } from './summary.js';

const order = (
  customerId: string,
  orderDate: OrderInput['orderDate'],
  amount: number,
  cancelled = false,
) => ({
  customerId,
  orderDate,
  amount,
  cancelled,
});

describe('summarizeOrders', () => {
  const orders = [
    order('a', '2024-01-01T09:00:00Z', 10),
    order('a', '2024-01-01T23:59:59Z', 5), // same UTC day: one transaction of 15
    order('a', '2024-01-15T12:00:00Z', 20),
    order('a', Date.parse('2024-01-29T00:00:00Z'), 40), // epoch ms
    order('a', new Date('2024-02-05T00:00:00Z'), 99, true), // cancelled
    order('a', '2024-03-01T00:00:00Z', 1000), // after the calibration end
    order('b', '2024-02-01T08:00:00+02:00', 7), // 2024-02-01 06:00 UTC
    order('c', '2024-03-02', 5), // only after the end: not summarised
  ];
  const end = '2024-02-12';

  it('computes x, t_x, T, monetary value and totals in weeks', () => {
    const [a, b] = summarizeOrders(orders, { calibrationEnd: end });
    expect(a).toEqual({
      customerId: 'a',
      frequency: 2,
      recency: 4, // 28 days
      T: 6, // 2024-01-01 → 2024-02-12 = 42 days
      monetaryValue: 30, // mean of 20 and 40; the first transaction is excluded
      totalRevenue: 75,
      transactions: 3,
      firstPurchaseAt: new Date('2024-01-01T00:00:00Z'),
      lastPurchaseAt: new Date('2024-01-29T00:00:00Z'),
      meanInterPurchaseTime: 2,
    });
    expect(b).toMatchObject({ customerId: 'b', frequency: 0, recency: 0, T: 11 / 7, monetaryValue: 0 });
    expect(b?.meanInterPurchaseTime).toBeNull();
  });

  it('leaves out customers without orders up to the calibration end', () => {
    expect(summarizeOrders(orders, { calibrationEnd: end }).map((s) => s.customerId)).toEqual(['a', 'b']);
  });

  it('includes orders on the calibration end day and supports days', () => {
    const [a] = summarizeOrders(orders, { calibrationEnd: '2024-03-01T18:00:00Z', timeUnit: 'days' });
    expect(a).toMatchObject({
      frequency: 3,
      recency: 60,
      T: 60,
      totalRevenue: 1075,
      meanInterPurchaseTime: 20,
    });
    expect(a?.monetaryValue).toBeCloseTo((20 + 40 + 1000) / 3, 12);
  });

  it('counts net amounts, including zero (refunded) orders, as transactions', () => {
    const [s] = summarizeOrders([order('z', '2024-01-01', 10), order('z', '2024-01-08', 0)], {
      calibrationEnd: '2024-01-08',
    });
    expect(s).toMatchObject({ frequency: 1, monetaryValue: 0, totalRevenue: 10 });
  });

  it('rejects invalid dates and amounts', () => {
    expect(() => summarizeOrders([order('x', 'not a date', 1)], { calibrationEnd: end })).toThrow(RangeError);
    expect(() => summarizeOrders([order('x', '2024-01-01', NaN)], { calibrationEnd: end })).toThrow(
      RangeError,
    );
  });
});

describe('summarizeCustomer', () => {
  it('summarises one customer and returns null when nothing counts', () => {
    const orders = [order('a', '2024-01-01', 1), order('b', '2024-01-02', 2), order('b', '2024-01-09', 3)];
    expect(summarizeCustomer('b', orders, { calibrationEnd: '2024-01-09' })).toMatchObject({
      frequency: 1,
      recency: 1,
      T: 1,
      monetaryValue: 3,
    });
    expect(summarizeCustomer('c', orders, { calibrationEnd: '2024-01-09' })).toBeNull();
  });
});
