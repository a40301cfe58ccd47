import { describe, expect, it } from 'vitest';
import { CustomerDays, netOrderAmount } from './customer-days.js';
import { summarizeOrders, type CustomerSummary } from './summary.js';
import { toUtcDay } from './time.js';
import { mulberry32 } from './prng.js';

const DAY = 86_400_000;

const byId = (list: CustomerSummary[]) => new Map(list.map((s) => [s.customerId, s]));

/** The definition, written the obvious way (a Map of days per customer, sorted): the oracle. */
function reference(
  orders: readonly { customerId: string; orderDate: Date; amount: number }[],
  endDay: number,
  unitDays: number,
): CustomerSummary[] {
  const byCustomer = new Map<string, Map<number, number>>();
  for (const o of orders) {
    const day = toUtcDay(o.orderDate);
    if (day > endDay) continue;
    const days = byCustomer.get(o.customerId) ?? new Map<number, number>();
    byCustomer.set(o.customerId, days);
    days.set(day, (days.get(day) ?? 0) + o.amount);
  }
  return [...byCustomer].map(([customerId, days]) => {
    const sorted = [...days.keys()].sort((p, q) => p - q);
    const first = sorted[0]!;
    const last = sorted.at(-1)!;
    const total = [...days.values()].reduce((a, b) => a + b, 0);
    const frequency = sorted.length - 1;
    const recency = (last - first) / unitDays;
    return {
      customerId,
      frequency,
      recency,
      T: (endDay - first) / unitDays,
      monetaryValue: frequency > 0 ? (total - days.get(first)!) / frequency : 0,
      totalRevenue: total,
      transactions: sorted.length,
      firstPurchaseAt: new Date(first * DAY),
      lastPurchaseAt: new Date(last * DAY),
      meanInterPurchaseTime: frequency > 0 ? recency / frequency : null,
    };
  });
}

describe('CustomerDays', () => {
  it('given orders in any order, then the summaries are those of the definition (and summarizeOrders gives the same)', () => {
    const rnd = mulberry32(7);
    const end = new Date('2026-11-22T02:00:00Z');
    const orders: { customerId: string; orderDate: Date; amount: number }[] = [];
    for (let i = 0; i < 3000; i++) {
      const customerId = `c${Math.floor(rnd() * 400)}`;
      // Dates from 400 days before to 5 days after the calibration end; several on the same day.
      const orderDate = new Date(end.getTime() - Math.floor(rnd() * 405 - 5) * DAY + Math.floor(rnd() * DAY));
      orders.push({ customerId, orderDate, amount: Math.round(rnd() * 20_000) / 100 });
    }
    const acc = new CustomerDays();
    for (const o of orders) acc.add(o.customerId, toUtcDay(o.orderDate), o.amount);
    for (const unit of ['weeks', 'days'] as const) {
      const unitDays = unit === 'weeks' ? 7 : 1;
      const expected = byId(reference(orders, toUtcDay(end), unitDays));
      const actual = byId(acc.summaries(toUtcDay(end), unitDays));
      expect(byId(summarizeOrders(orders, { calibrationEnd: end, timeUnit: unit }))).toEqual(actual);
      expect([...actual.keys()].sort()).toEqual([...expected.keys()].sort());
      for (const [id, e] of expected) {
        const a = actual.get(id)!;
        // Sums of the same amounts in another order may differ in the last bit.
        expect({ ...a, monetaryValue: 0, totalRevenue: 0 }).toEqual({
          ...e,
          monetaryValue: 0,
          totalRevenue: 0,
        });
        expect(a.monetaryValue).toBeCloseTo(e.monetaryValue, 9);
        expect(a.totalRevenue).toBeCloseTo(e.totalRevenue, 9);
      }
    }
  });

  it('given same-day orders, then they are one transaction; the first day is left out of the monetary value', () => {
    const acc = new CustomerDays();
    expect(acc.add('a', 100, 10)).toBe(true);
    expect(acc.add('a', 107, 4)).toBe(false);
    acc.add('a', 100, 5);
    acc.add('a', 114, 6);
    const [a] = acc.summaries(121, 7);
    expect(a).toMatchObject({
      frequency: 2,
      recency: 2,
      T: 3,
      transactions: 3,
      monetaryValue: 5,
      totalRevenue: 25,
    });
    expect(a!.firstPurchaseAt.toISOString()).toBe('1970-04-11T00:00:00.000Z');
  });

  it('given a customer whose orders all fall after the end day, then it has no summary', () => {
    const acc = new CustomerDays();
    acc.add('late', 200, 1);
    expect(acc.summaries(199, 1)).toEqual([]);
  });
});

describe('CustomerDays over any spread of orders', () => {
  it('given orders newest first, interleaved across customers and spanning centuries, then days are ordered per customer', () => {
    const acc = new CustomerDays();
    // Days 0 (1970) to 80,000 (2189): wider than one 16-bit counting pass.
    for (const [c, day, amount] of [
      ['b', 80_000, 1],
      ['a', 300, 2],
      ['b', 7, 3],
      ['a', 300, 4],
      ['a', 0, 5],
      ['b', 80_000, 6],
    ] as const)
      acc.add(c, day, amount);
    expect(
      acc.summaries(80_000, 1).map((s) => [s.customerId, s.frequency, s.recency, s.T, s.monetaryValue]),
    ).toEqual([
      ['b', 1, 79_993, 79_993, 7],
      ['a', 1, 300, 80_000, 6],
    ]);
  });

  it('refuses a day that is not a whole number', () => {
    expect(() => new CustomerDays().add('a', 1.5, 1)).toThrow(RangeError);
  });

  it.each([
    [100, 0, 100],
    [100, 20, 80],
    [100, 120, 0],
  ])('net amount of gross %d refunded %d is %d (floored at 0)', (gross, refunded, net) => {
    expect(netOrderAmount(gross, refunded)).toBe(net);
  });
});
