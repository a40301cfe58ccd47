import { describe, expect, it } from 'vitest';
import { summarizeOrders, toUtcDay, type CustomerSummary } from '@holdfast/analytics';
import { readDecimal, readInt, LineSplitter } from './copy-text.js';
import { CustomerDays } from './customer-days.js';

const DAY = 86_400_000;

function mulberry32(seed: number): () => number {
  let a = seed >>> 0;
  return () => {
    a = (a + 0x6d2b79f5) >>> 0;
    let t = Math.imul(a ^ (a >>> 15), a | 1);
    t ^= t + Math.imul(t ^ (t >>> 7), t | 61);
    return ((t ^ (t >>> 14)) >>> 0) / 4_294_967_296;
  };
}

const byId = (list: CustomerSummary[]) => new Map(list.map((s) => [s.customerId, s]));

describe('CustomerDays', () => {
  it('given orders in any order, then the summaries are exactly those of summarizeOrders', () => {
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
      const expected = byId(summarizeOrders(orders, { calibrationEnd: end, timeUnit: unit }));
      const actual = byId(acc.summaries(toUtcDay(end), unit === 'weeks' ? 7 : 1));
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

describe('COPY text readers', () => {
  const buf = (s: string) => Buffer.from(s, 'latin1');
  it.each(['12.3400', '0', '-3.5', '0.0001', '1234567.8901', '99999999999999.9999'])(
    'reads %s as Number does',
    (s) => {
      expect(readDecimal(buf(s), 0, s.length)).toBe(Number(s));
    },
  );
  it('reads signed integers', () => {
    expect(readInt(buf('20412'), 0, 5)).toBe(20412);
    expect(readInt(buf('-3'), 0, 2)).toBe(-3);
  });
  it('joins lines split across chunks and refuses a stream that ends inside a line', () => {
    const lines: string[] = [];
    const split = new LineSplitter();
    const collect = (b: Buffer, s: number, e: number) => void lines.push(b.toString('utf8', s, e));
    split.push(buf('a\tb\nc'), collect);
    split.push(buf('d\ne'), collect);
    expect(lines).toEqual(['a\tb', 'cd']);
    expect(() => split.end()).toThrow('COPY stream ended inside a line');
  });
});
