import { randomUUID } from 'node:crypto';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import {
  scoreSummaryColumns,
  summarizeDays,
  zeroSummaryNumbers,
  type SummaryColumns,
} from '@holdfast/analytics';
import { localDayOf } from '@holdfast/local-time';
import { DEFAULT_READ_MODEL_SCHEMA } from '@holdfast/read-models';
import { createTestEnv, type TestEnv } from '@holdfast/testing';
import { DEFAULT_SCORING, recomputeAccount } from '../../src/scoring/recompute-account.js';
import { insertOrders, prepareSchemas, type FixtureOrder } from './testing/read-model-fixture.js';

let t: TestEnv;
const AS_OF = new Date('2026-11-22T02:00:00.000Z'); // the nightly run: 21 November in New York and Los Angeles

beforeAll(async () => {
  t = await createTestEnv('recompute-zones');
  await prepareSchemas(t);
});
afterAll(() => t?.close());

/** The scores the pure rules give: each customer's orders as local days of `zone`, summarised, scored. */
function expectedScores(customers: readonly { orders: readonly FixtureOrder[]; zone: string }[]) {
  const columns: SummaryColumns = {
    frequency: new Float64Array(customers.length),
    recency: new Float64Array(customers.length),
    T: new Float64Array(customers.length),
    monetaryValue: new Float64Array(customers.length),
    totalRevenue: new Float64Array(customers.length),
    transactions: new Float64Array(customers.length),
  };
  customers.forEach((c, i) => {
    const out = zeroSummaryNumbers();
    const days = Int32Array.from(c.orders, (o) => localDayOf(o.orderDate, c.zone));
    const amounts = Float64Array.from(c.orders, (o) => o.amount);
    expect(summarizeDays(days, amounts, days.length, localDayOf(AS_OF, c.zone), 7, out)).toBe(true);
    columns.frequency[i] = out.frequency;
    columns.recency[i] = out.recency;
    columns.T[i] = out.T;
    columns.monetaryValue[i] = out.monetaryValue;
    columns.totalRevenue[i] = out.totalRevenue;
    columns.transactions[i] = out.transactions;
  });
  return {
    columns,
    scores: scoreSummaryColumns(columns, {
      asOf: AS_OF,
      horizon: DEFAULT_SCORING.horizonDays / 7,
      discountRate: DEFAULT_SCORING.discountRate,
    }).scores,
  };
}

describe('recomputeAccount in local time', () => {
  it('given a store in Los Angeles and a customer whose ZIP is in New York, when orders straddle local midnights (a DST change among them), then days are counted on each customer’s clock', async () => {
    const account = randomUUID();
    const [ny, store, berlin] = [randomUUID(), randomUUID(), randomUUID()];
    await t.pool.query(
      `insert into read_models.account_settings (account_id, store_timezone, updated_at)
       values ($1, 'America/Los_Angeles', now())`,
      [account],
    );
    await t.pool.query(
      `insert into read_models.customers (account_id, customer_id, external_id, address_zip, address_country,
         created_at, updated_at)
       values ($1, $2, 'ny', '10001', 'US', now(), now()), ($1, $3, 'la', null, null, now(), now()),
              ($1, $4, 'de', '10115', 'DE', now(), now())`,
      [account, ny, store, berlin],
    );
    const nyOrders: FixtureOrder[] = [
      // One UTC day, two New York days: 28 February 22:00 EST and 1 March 15:00 EST.
      { customerId: ny, orderDate: new Date('2026-03-01T03:00:00Z'), amount: 20 },
      { customerId: ny, orderDate: new Date('2026-03-01T20:00:00Z'), amount: 30 },
    ];
    const storeOrders: FixtureOrder[] = [
      // Los Angeles leaves DST at 09:00 UTC on 1 November: 31 October 23:30 PDT, then 1 November 01:30 PDT.
      { customerId: store, orderDate: new Date('2026-11-01T06:30:00Z'), amount: 10 },
      { customerId: store, orderDate: new Date('2026-11-01T08:30:00Z'), amount: 15 },
    ];
    const berlinOrders: FixtureOrder[] = [
      // A German postcode does not place anyone: the store's clock, where 22 November 01:00 UTC is the 21st.
      { customerId: berlin, orderDate: new Date('2026-10-01T12:00:00Z'), amount: 40 },
      { customerId: berlin, orderDate: new Date('2026-11-22T01:00:00Z'), amount: 5 },
    ];
    const late: FixtureOrder = {
      // 22 November 01:00 in New York: after its as-of day, though on the UTC day of the run.
      customerId: ny,
      orderDate: new Date('2026-11-22T06:00:00Z'),
      amount: 99,
    };
    await insertOrders(t, account, [...nyOrders, ...storeOrders, ...berlinOrders, late]);

    const outcome = await recomputeAccount(
      { pool: t.pool, readModelSchema: DEFAULT_READ_MODEL_SCHEMA },
      account,
      AS_OF,
    );

    expect(outcome).toMatchObject({
      customers: 3,
      orders: 6,
      model: 'heuristic',
      storeZone: 'America/Los_Angeles',
    });
    const expected = expectedScores([
      { orders: nyOrders, zone: 'America/New_York' },
      { orders: storeOrders, zone: 'America/Los_Angeles' },
      { orders: berlinOrders, zone: 'America/Los_Angeles' },
    ]);
    expect(Array.from(expected.columns.frequency)).toEqual([1, 1, 1]);
    const { rows } = await t.pool.query<{
      customer_id: string;
      p_alive: number;
      expected_purchases: number;
      realised_revenue: string;
    }>(
      `select customer_id, p_alive, expected_purchases, realised_revenue from analytics.customer_scores
        where account_id = $1`,
      [account],
    );
    const byId = new Map(rows.map((r) => [r.customer_id, r]));
    [ny, store, berlin].forEach((id, i) => {
      const row = byId.get(id)!;
      expect(row.p_alive).toBe(expected.scores.pAlive[i]);
      expect(row.expected_purchases).toBe(expected.scores.expectedPurchases[i]);
      expect(Number(row.realised_revenue)).toBe(expected.columns.totalRevenue[i]);
    });
    // In UTC the New York customer would have bought once (x = 0): the zone made the difference.
    const utc = expectedScores([{ orders: nyOrders, zone: 'UTC' }]);
    expect(utc.columns.frequency[0]).toBe(0);
    const { rows: fits } = await t.pool.query<{ params: { store_timezone: string } }>(
      `select params from analytics.model_fits where account_id = $1`,
      [account],
    );
    expect(fits[0]!.params.store_timezone).toBe('America/Los_Angeles');
  });

  it('given an account without store_timezone, then its customers without a placing ZIP are on UTC', async () => {
    const account = randomUUID();
    const c = randomUUID();
    const orders: FixtureOrder[] = [
      { customerId: c, orderDate: new Date('2026-03-01T03:00:00Z'), amount: 20 },
      { customerId: c, orderDate: new Date('2026-03-01T20:00:00Z'), amount: 30 },
    ];
    await insertOrders(t, account, orders);
    const outcome = await recomputeAccount(
      { pool: t.pool, readModelSchema: DEFAULT_READ_MODEL_SCHEMA },
      account,
      AS_OF,
    );
    expect(outcome).toMatchObject({ customers: 1, orders: 2, storeZone: 'UTC' });
    const { rows } = await t.pool.query<{ p_alive: number }>(
      `select p_alive from analytics.customer_scores where account_id = $1`,
      [account],
    );
    expect(rows[0]!.p_alive).toBe(expectedScores([{ orders, zone: 'UTC' }]).scores.pAlive[0]);
  });
});
