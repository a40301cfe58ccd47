import { describe, expect, it } from 'vitest';
import { CustomerDays } from './customer-days.js';
import { summarizeDays } from './day-summary.js';
import { mulberry32 } from './prng.js';
import { zeroSummaryNumbers } from './summary-numbers.js';

describe('summarizeDays', () => {
  it('given a customer’s days in any order, then the summary is the one CustomerDays gives, to the bit', () => {
    const rnd = mulberry32(11);
    const endDay = 20_400;
    for (let customer = 0; customer < 300; customer++) {
      const n = 1 + Math.floor(rnd() * 12);
      const days = new Int32Array(n);
      const amounts = new Float64Array(n);
      const acc = new CustomerDays();
      for (let i = 0; i < n; i++) {
        days[i] = endDay - 60 + Math.floor(rnd() * 70); // some after the end day
        amounts[i] = Math.round(rnd() * 10_000) / 100;
        acc.add('c', days[i]!, amounts[i]!);
      }
      const expected = acc.columns(endDay, 7).columns;
      const out = zeroSummaryNumbers();
      const counted = summarizeDays(days, amounts, n, endDay, 7, out);
      expect(counted).toBe(expected.frequency.length === 1);
      if (!counted) continue;
      expect(out).toEqual({
        frequency: expected.frequency[0],
        recency: expected.recency[0],
        T: expected.T[0],
        monetaryValue: expected.monetaryValue[0],
        totalRevenue: expected.totalRevenue[0],
        transactions: expected.transactions[0],
      });
    }
  });

  it('given two orders on one day and one a week later, then one repeat transaction', () => {
    const out = zeroSummaryNumbers();
    expect(
      summarizeDays(Int32Array.of(20_007, 20_000, 20_000), Float64Array.of(5, 10, 2), 3, 20_010, 7, out),
    ).toBe(true);
    expect(out).toEqual({
      frequency: 1,
      recency: 1,
      T: 10 / 7,
      monetaryValue: 5,
      totalRevenue: 17,
      transactions: 2,
    });
  });

  it('given only orders after the end day, or none, then nothing counts', () => {
    const out = zeroSummaryNumbers();
    expect(summarizeDays(Int32Array.of(20_011), Float64Array.of(5), 1, 20_010, 7, out)).toBe(false);
    expect(summarizeDays(new Int32Array(4), new Float64Array(4), 0, 20_010, 7, out)).toBe(false);
  });
});
