import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createAccount } from '@holdfast/control-plane';
import { decideBilling } from '@holdfast/analytics';
import { createTestEnv, type TestEnv } from '@holdfast/testing';
import { insertCustomer, insertOrder, prepareCampaignSchemas } from '../campaigns/test-support/seed.js';
import { liftFigures } from '../../src/attribution/lift-report.js';
import { computeLiftReports } from '../../src/attribution/lift-reports.js';
import { DEFAULT_READ_MODEL_SCHEMA } from '@holdfast/read-models';

const DAY = 86_400_000;

interface LiftRow {
  [column: string]: unknown;
  ci_low: number;
  ci_high: number;
  p_value: number;
  mde: number;
  incremental_revenue: number;
  billable_revenue: number;
}
const MARCH = { start: new Date('2025-03-01T00:00:00.000Z'), end: new Date('2025-04-01T00:00:00.000Z') };
const on = (day: number): Date => new Date(MARCH.start.getTime() + (day - 1) * DAY);

describe('lift reports: treated vs holdout revenue per customer, net of refunds, per type and period', () => {
  let t: TestEnv;
  let account: string;

  const assign = async (
    customerId: string,
    type: string,
    arm: 'treated' | 'holdout',
    at: Date,
    status?: string,
  ) => {
    const st = status ?? (arm === 'treated' ? 'sent' : 'held_out');
    await t.pool.query(
      `insert into analytics.campaign_assignments (assignment_id, account_id, run_id, campaign_type, customer_id, arm,
         channel, provider, status, tracking_id, assigned_at, sent_at)
       values (gen_random_uuid(), $1, gen_random_uuid(), $2, $3, $4, 'email', 'p', $5,
         case when $4 = 'treated' then 'hft_' || left(md5(gen_random_uuid()::text), 24) end, $6, $6)`,
      [account, type, customerId, arm, st, at],
    );
  };
  const report = async (type: string) =>
    (
      await t.pool.query<LiftRow>(
        `select * from analytics.lift_reports where account_id = $1 and campaign_type = $2`,
        [account, type],
      )
    ).rows;

  beforeAll(async () => {
    t = await createTestEnv('liftreports');
    await prepareCampaignSchemas(t);
    account = (await createAccount(t.db, { name: 'Shop', storefrontDomain: 'shop.example.com' })).id;
  });
  afterAll(() => t.close());

  it('computes the report from every order after assignment (refunds and cancellations netted) and upserts it', async () => {
    const c = async () => insertCustomer(t, account);
    const [t1, t2, t3, t4, h1, h2, h3, failed] = [
      await c(),
      await c(),
      await c(),
      await c(),
      await c(),
      await c(),
      await c(),
      await c(),
    ];
    await assign(t1, 'win_back', 'treated', on(2));
    await assign(t2, 'win_back', 'treated', on(2));
    await assign(t3, 'win_back', 'treated', on(10));
    await assign(t4, 'win_back', 'treated', on(2));
    await assign(t1, 'win_back', 'treated', on(20)); // again in the period: counted once, from day 2
    await assign(h1, 'win_back', 'holdout', on(2));
    await assign(h2, 'win_back', 'holdout', on(2));
    await assign(h3, 'win_back', 'holdout', on(10));
    // Intent to treat: selected but the send failed, still counts as treated (with its 400).
    await assign(failed, 'win_back', 'treated', on(2), 'failed');
    await assign(t2, 'vip', 'treated', on(5));

    await insertOrder(t, account, { customerId: t1, orderDate: on(1), amount: 999 }); // before assignment
    await insertOrder(t, account, { customerId: t1, orderDate: on(3), amount: 120, refunded: 20 });
    await insertOrder(t, account, { customerId: t1, orderDate: on(25), amount: 50 });
    await insertOrder(t, account, { customerId: t2, orderDate: on(4), amount: 80 });
    await insertOrder(t, account, { customerId: t3, orderDate: on(9), amount: 70 }); // before its assignment
    await insertOrder(t, account, { customerId: t3, orderDate: on(12), amount: 60, cancelledAt: on(13) });
    await insertOrder(t, account, { customerId: t4, orderDate: on(40), amount: 500 }); // after the period
    await insertOrder(t, account, { customerId: h1, orderDate: on(5), amount: 30 });
    await insertOrder(t, account, { customerId: h3, orderDate: on(11), amount: 20, refunded: 20 });
    await insertOrder(t, account, { customerId: failed, orderDate: on(3), amount: 400 });

    const now = on(45);
    expect(
      await computeLiftReports(t.pool, {
        accountId: account,
        readModelSchema: DEFAULT_READ_MODEL_SCHEMA,
        now,
        periods: [MARCH],
      }),
    ).toBe(2);
    const expected = liftFigures([150, 80, 0, 0, 400], [30, 0, 0]);
    const [row] = await report('win_back');
    expect(row).toMatchObject({
      period_start: MARCH.start,
      period_end: MARCH.end,
      treated_customers: 5,
      holdout_customers: 3,
      treated_revenue_per_customer: 126,
      holdout_revenue_per_customer: 10,
      lift: 116,
      significant: expected.significant,
      billable_revenue: decideBilling({ ...expected, periodEnd: MARCH.end, now }).billableRevenue,
      computed_at: now,
    });
    expect(row!.ci_low).toBeCloseTo(expected.ciLow!, 9);
    expect(row!.ci_high).toBeCloseTo(expected.ciHigh!, 9);
    expect(row!.p_value).toBeCloseTo(expected.pValue!, 12);
    expect(row!.mde).toBeCloseTo(expected.mde!, 9);
    expect(row!.incremental_revenue).toBeCloseTo(580, 9);
    // Computed 45 days after the end of the month: provisional until 60 days after it.
    expect(row).toMatchObject({
      test: 'permutation',
      settlement_status: 'provisional',
      settles_at: new Date('2025-05-31T00:00:00.000Z'),
      settled_at: null,
      final_billable_revenue: null,
    });
    expect(row!.significant).toBe(false);
    expect(row!.billable_revenue).toBe(0);
    // One treated customer (whose only order came before the vip send), no holdout: reported, nothing
    // statistical, nothing billable.
    expect(await report('vip')).toMatchObject([
      {
        treated_customers: 1,
        holdout_customers: 0,
        treated_revenue_per_customer: 0,
        holdout_revenue_per_customer: null,
        lift: null,
        p_value: null,
        significant: false,
        billable_revenue: 0,
      },
    ]);

    // A late refund moves the report on the next recompute; still one row per type and period.
    await t.pool.query(
      `update read_models.orders set refunded_amount = 80 where account_id = $1 and customer_id = $2`,
      [account, t2],
    );
    await computeLiftReports(t.pool, {
      accountId: account,
      readModelSchema: DEFAULT_READ_MODEL_SCHEMA,
      now: on(46),
      periods: [MARCH],
    });
    const rows = await report('win_back');
    expect(rows).toHaveLength(1);
    expect(rows[0]).toMatchObject({ treated_revenue_per_customer: 110, computed_at: on(46) });
  });

  it('settles a period once: final after the settlement days, never moved by later refunds', async () => {
    const shop = (await createAccount(t.db, { name: 'Settling' })).id;
    account = shop;
    const treated: string[] = [];
    for (let i = 0; i < 30; i++) treated.push(await insertCustomer(t, shop));
    const holdout: string[] = [];
    for (let i = 0; i < 10; i++) holdout.push(await insertCustomer(t, shop));
    for (const [i, id] of treated.entries()) {
      await assign(id, 'vip', 'treated', on(2), i === 0 ? 'failed' : 'sent');
      await insertOrder(t, shop, { customerId: id, orderDate: on(3), amount: 100 + (i % 5) * 10 });
    }
    for (const id of holdout) await assign(id, 'vip', 'holdout', on(2));
    const run = (now: Date) =>
      computeLiftReports(t.pool, {
        accountId: shop,
        readModelSchema: DEFAULT_READ_MODEL_SCHEMA,
        now,
        settlementDays: 60,
      });
    // 50 days after March: March is refreshed by default (settlingPeriods) and still provisional.
    await run(new Date('2025-05-20T00:00:00Z'));
    let [row] = await report('vip');
    expect(row).toMatchObject({
      settlement_status: 'provisional',
      treated_customers: 30,
      final_billable_revenue: null,
    });
    expect(row!.billable_revenue).toBeCloseTo(3600, 4);
    // A refund 55 days after the period: the provisional figure drops.
    await t.pool.query(
      `update read_models.orders set refunded_amount = order_amount where account_id = $1 and customer_id = any($2::uuid[])`,
      [shop, treated.slice(0, 6)],
    );
    await run(new Date('2025-05-26T00:00:00Z'));
    [row] = await report('vip');
    expect(row!.treated_revenue_per_customer).toBeCloseTo(2900 / 30, 9); // 3,600 − 700 refunded
    expect(row!.billable_revenue).toBeCloseTo(2900, 4);
    // The first run after 2025-05-31 settles it with the refunds known then, and stores both figures.
    const settledAt = new Date('2025-06-01T02:00:00Z');
    await run(settledAt);
    [row] = await report('vip');
    expect(row).toMatchObject({ settlement_status: 'final', settled_at: settledAt, computed_at: settledAt });
    expect(row!.final_billable_revenue).toBeCloseTo(2900, 4);
    // A refund after settlement changes nothing any more.
    await t.pool.query(`update read_models.orders set refunded_amount = order_amount where account_id = $1`, [
      shop,
    ]);
    await run(new Date('2025-06-02T02:00:00Z'));
    [row] = await report('vip');
    expect(row).toMatchObject({ settlement_status: 'final', computed_at: settledAt });
    expect(row!.billable_revenue).toBeCloseTo(2900, 4);
    // Four runs over a billable month, its figures moving and then settling: ONE lift.proven, with
    // the figures of the run that first found it billable.
    const { rows: proven } = await t.pool.query<{ subject: string; data: Record<string, unknown> }>(
      `select subject, data from control.outbound_events where account_id = $1 and event_type = 'lift.proven'`,
      [shop],
    );
    expect(proven.map((p) => p.subject)).toEqual(['lift:vip:2025-03']);
    expect(proven[0]!.data).toMatchObject({ campaign_type: 'vip', settlement_status: 'provisional' });
    expect(proven[0]!.data.billable_revenue).toBeCloseTo(3600, 4);
  });

  it('bills significant positive lift only', async () => {
    const other = (await createAccount(t.db, { name: 'Big lift' })).id;
    account = other;
    const treated: string[] = [];
    const holdout: string[] = [];
    for (let i = 0; i < 30; i++) treated.push(await insertCustomer(t, other));
    for (let i = 0; i < 10; i++) holdout.push(await insertCustomer(t, other));
    for (const [i, id] of treated.entries()) {
      await assign(id, 'replenishment', 'treated', on(2));
      await insertOrder(t, other, { customerId: id, orderDate: on(3), amount: 100 + (i % 5) * 10 });
    }
    for (const [i, id] of holdout.entries()) {
      await assign(id, 'replenishment', 'holdout', on(2));
      if (i % 2) await insertOrder(t, other, { customerId: id, orderDate: on(3), amount: 40 });
    }
    await computeLiftReports(t.pool, {
      accountId: other,
      readModelSchema: DEFAULT_READ_MODEL_SCHEMA,
      now: on(20),
      periods: [MARCH],
    });
    const [row] = await report('replenishment');
    expect(row).toMatchObject({
      treated_customers: 30,
      holdout_customers: 10,
      treated_revenue_per_customer: 120,
      holdout_revenue_per_customer: 20,
      lift: 100,
      significant: true,
    });
    expect(row!.p_value).toBeLessThan(0.05);
    expect(row!.billable_revenue).toBeCloseTo(3000, 4);
    expect(row!.mde).toBeGreaterThan(0);
  });
});
