import { describe, expect, it } from 'vitest';
import { groupRfm } from '@holdfast/analytics';
import { AccountGroups } from '../../src/scoring/account-groups.js';

const customer = (x: number, txDays: number, tDays: number, m: number) => ({
  frequency: x,
  recency: txDays,
  T: tDays,
  monetaryValue: m,
  totalRevenue: m * (x + 1),
  transactions: x + 1,
});

describe('AccountGroups', () => {
  it('given customers in whole days, when grouped, then the (x, t_x, T) groups are groupRfm’s in weeks and the spend groups count (x, m_x)', () => {
    const customers = [
      customer(0, 0, 30, 0),
      customer(2, 14, 70, 12.5),
      customer(0, 0, 30, 0),
      customer(2, 14, 70, 12.5),
      customer(2, 14, 70, 9),
      customer(1, 7, 100_000, 4), // a history longer than 16 bits of days
    ];
    const groups = new AccountGroups(7);
    for (const c of customers) groups.add(c);
    const stats = groups.statistics();
    expect(groups.customers).toBe(6);
    expect(groups.groups).toEqual({ rfm: 3, spend: 3 });
    expect(stats.rfm).toEqual(
      groupRfm(customers.map((c) => ({ frequency: c.frequency, recency: c.recency / 7, T: c.T / 7 }))),
    );
    expect(Array.from(stats.spend.frequency)).toEqual([2, 2, 1]);
    expect(Array.from(stats.spend.monetaryValue)).toEqual([12.5, 9, 4]);
    expect(Array.from(stats.spend.weight!)).toEqual([2, 1, 1]);
  });

  it('given a customer with no repeat purchase, then they add to the (x, t_x, T) groups only', () => {
    const groups = new AccountGroups(1);
    groups.add(customer(0, 0, 5, 0));
    expect(groups.groups).toEqual({ rfm: 1, spend: 0 });
  });
});
