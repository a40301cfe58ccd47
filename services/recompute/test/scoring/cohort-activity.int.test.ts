import { randomUUID } from 'node:crypto';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createTestEnv, type TestEnv } from '@holdfast/testing';
import { refreshCohortActivity } from '../../src/scoring/cohort-activity.js';
import { insertOrders, prepareSchemas, type FixtureOrder } from './testing/read-model-fixture.js';

let t: TestEnv;

beforeAll(async () => {
  t = await createTestEnv('recompute-cohorts');
  await prepareSchemas(t);
});
afterAll(() => t?.close());

/** month index (year × 12 + month − 1) of a calendar month */
const month = (year: number, m: number) => year * 12 + m - 1;

async function cohorts(account: string): Promise<string[]> {
  const { rows } = await t.pool.query<{ cohort: number; months_since: number; customers: number }>(
    `select cohort, months_since, customers from analytics.cohort_activity where account_id = $1
      order by cohort, months_since`,
    [account],
  );
  return rows.map((r) => `${r.cohort}+${r.months_since}:${r.customers}`);
}

async function accountIn(zone: string | null): Promise<string> {
  const account = randomUUID();
  if (zone !== null)
    await t.pool.query(
      `insert into read_models.account_settings (account_id, store_timezone, updated_at) values ($1, $2, now())`,
      [account, zone],
    );
  return account;
}

describe('refreshCohortActivity on the store’s clock', () => {
  // Three customers around the October/November boundary of New York (EDT until 1 November 06:00 UTC,
  // so local midnight of 1 November is 04:00 UTC on 1 November).
  const [a, b, c, d] = [randomUUID(), randomUUID(), randomUUID(), randomUUID()];
  const orders: FixtureOrder[] = [
    // a: 31 October 23:30 EDT (1 November in UTC), then 15 November: cohort October, active +0 and +1.
    { customerId: a, orderDate: new Date('2026-11-01T03:30:00Z'), amount: 10 },
    { customerId: a, orderDate: new Date('2026-11-15T15:00:00Z'), amount: 10 },
    // b: 1 November 00:30 EDT: cohort November.
    { customerId: b, orderDate: new Date('2026-11-01T04:30:00Z'), amount: 10 },
    // The as-of is 30 November 22:00 EST (1 December 03:00 UTC). c: 30 November 23:30 EST, on the
    // as-of day there. d: 1 December 00:30 EST, after it (both on the as-of day of the UTC clock).
    { customerId: c, orderDate: new Date('2026-12-01T04:30:00Z'), amount: 10 },
    { customerId: d, orderDate: new Date('2026-12-01T05:30:00Z'), amount: 10 },
  ];
  const asOf = new Date('2026-12-01T03:00:00Z');

  it('given a store in New York, when orders straddle local midnight of 1 November and of the as-of day, then they fall in the local months and end with the local as-of day', async () => {
    const account = await accountIn('America/New_York');
    await insertOrders(t, account, orders);
    await refreshCohortActivity(t.pool, 'read_models', account, asOf);
    const oct = month(2026, 10);
    const nov = month(2026, 11);
    expect(await cohorts(account)).toEqual([`${oct}+0:1`, `${oct}+1:1`, `${nov}+0:2`]);
  });

  it('given the same orders and no store zone, then UTC months and the UTC as-of day, as before', async () => {
    const account = await accountIn(null);
    await insertOrders(t, account, orders);
    await refreshCohortActivity(t.pool, 'read_models', account, asOf);
    // a and b are November's on the UTC clock; c and d order on 1 December UTC, the as-of day there.
    expect(await cohorts(account)).toEqual([`${month(2026, 11)}+0:2`, `${month(2026, 12)}+0:2`]);
  });
});
