import { randomUUID } from 'node:crypto';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { isHoldout, scoreCustomers, summarizeOrders } from '@holdfast/analytics';
import { silentLogger } from '@holdfast/platform';
import { createTestEnv, type TestEnv } from '@holdfast/testing';
import type { Selectable } from 'kysely';
import type { CustomerScoresTable } from '../../src/migrations/tables.js';
import {
  DEFAULT_SCORING,
  recomputeAccount,
  type RecomputeDeps,
} from '../../src/scoring/recompute-account.js';
import {
  insertCustomers,
  insertOrders,
  prepareSchemas,
  simulatedOrders,
  steadyOrders,
  type FixtureOrder,
} from './testing/read-model-fixture.js';
import { DEFAULT_READ_MODEL_SCHEMA } from '@holdfast/read-models';

let t: TestEnv;
let deps: RecomputeDeps;
const AS_OF = new Date('2026-11-22T02:00:00.000Z');
const day = (iso: string) => new Date(`${iso}T12:00:00Z`);

beforeAll(async () => {
  t = await createTestEnv('recompute-scores');
  await prepareSchemas(t);
  deps = { pool: t.pool, readModelSchema: DEFAULT_READ_MODEL_SCHEMA };
});
afterAll(() => t?.close());

type ScoreRow = Selectable<CustomerScoresTable>;

async function scoresOf(accountId: string): Promise<Map<string, ScoreRow>> {
  const { rows } = await t.pool.query<ScoreRow>(
    `select * from analytics.customer_scores where account_id = $1`,
    [accountId],
  );
  return new Map(rows.map((r) => [r.customer_id, r]));
}

describe('recomputeAccount', () => {
  it('given a small account, then every customer with a counted order gets exactly the heuristic scores of summarizeOrders + scoreCustomers', async () => {
    const account = randomUUID();
    const [c1, c2, c3, c4, c5] = Array.from({ length: 5 }, () => randomUUID()) as [
      string,
      string,
      string,
      string,
      string,
    ];
    const orders: FixtureOrder[] = [
      { customerId: c1, orderDate: day('2026-03-01'), amount: 40 },
      { customerId: c1, orderDate: day('2026-03-01'), amount: 10 }, // same day: one transaction
      { customerId: c1, orderDate: day('2026-06-01'), amount: 30, refunded: 5 }, // net 25
      { customerId: c1, orderDate: day('2026-09-15'), amount: 20 },
      { customerId: c2, orderDate: day('2026-05-01'), amount: 99, cancelledAt: day('2026-05-02') }, // not counted
      { customerId: c3, orderDate: day('2026-11-23'), amount: 15 }, // after the as-of day
      { customerId: c4, orderDate: day('2026-08-01'), amount: 10, refunded: 12 }, // net floored at 0, still a purchase
      { customerId: c5, orderDate: day('2026-11-22'), amount: 7 }, // on the as-of day: counted
      { customerId: null, orderDate: day('2026-04-01'), amount: 50 }, // no resolved customer
    ];
    await insertOrders(t, account, orders);
    // A tab and a backslash in an external id travel through COPY out and back in unchanged.
    await insertCustomers(
      t,
      account,
      new Map([
        [c1, 'ext-1'],
        [c4, 'odd\tid\\4'],
        [c5, null],
      ]),
    );
    const other = randomUUID();
    await insertOrders(t, other, [{ customerId: randomUUID(), orderDate: day('2026-01-01'), amount: 5 }]);

    const outcome = await recomputeAccount(deps, account, AS_OF);

    const counted = orders.filter((o) => o.customerId !== null);
    const summaries = summarizeOrders(
      counted.map((o) => ({
        customerId: o.customerId!,
        orderDate: o.orderDate,
        amount: Math.max(0, o.amount - (o.refunded ?? 0)),
        cancelled: o.cancelledAt != null,
      })),
      { calibrationEnd: AS_OF },
    );
    const expected = scoreCustomers(summaries, {
      asOf: AS_OF,
      horizon: DEFAULT_SCORING.horizonDays / 7,
      discountRate: DEFAULT_SCORING.discountRate,
    });
    expect(outcome).toMatchObject({ orders: 6, customers: 3, model: 'heuristic', repeatCustomers: 1 });
    // Every row of the account in the snapshot scored (a sync task's counters), not only those counted.
    expect(outcome.snapshot).toEqual({ orders: orders.length, customers: 3 });
    const rows = await scoresOf(account);
    expect([...rows.keys()].sort()).toEqual([c1, c4, c5].sort());
    for (const s of expected.scores) {
      const row = rows.get(s.customerId)!;
      const summary = summaries.find((x) => x.customerId === s.customerId)!;
      expect(row.p_alive).toBe(s.pAlive);
      expect(row.churn_risk).toBe(s.churnRisk);
      expect(row.lifecycle_state).toBe(s.state);
      expect(row.expected_purchases).toBe(s.expectedPurchases);
      expect(row.predicted_next_purchase_at?.toISOString() ?? null).toBe(
        s.predictedNextPurchaseAt?.toISOString() ?? null,
      );
      expect(row.expected_spend).toBeCloseTo(s.expectedSpend, 4);
      expect(row.predicted_value).toBeCloseTo(s.predictedValue, 4);
      expect(row.lifetime_value).toBeCloseTo(s.lifetimeValue, 4);
      expect(row.realised_revenue).toBeCloseTo(summary.totalRevenue, 4);
      expect(row.is_holdout).toBe(isHoldout(account, s.customerId));
      expect(row).toMatchObject({ model: 'heuristic', horizon_days: 365, as_of: AS_OF });
      expect(row.model_params).toEqual({
        time_unit: 'weeks',
        account_median_gap: expect.any(Number) as number,
      });
    }
    expect(rows.get(c1)).toMatchObject({ external_id: 'ext-1', realised_revenue: 95 });
    expect(rows.get(c4)).toMatchObject({ external_id: 'odd\tid\\4', realised_revenue: 0 });
    expect(rows.get(c5)!.external_id).toBeNull();
    expect((await scoresOf(other)).size).toBe(0);
    const { rows: fits } = await t.pool.query(`select * from analytics.model_fits where account_id = $1`, [
      account,
    ]);
    expect(fits).toEqual([
      expect.objectContaining({
        model: 'heuristic',
        customers: 3,
        repeat_customers: 1,
        converged: true,
        log_likelihood: null,
      }),
    ]);
    // The lifecycle mix of this recompute, recorded for the mix over time: the rows' states, counted.
    const { rows: mix } = await t.pool.query<{ lifecycle_state: string; customers: number; as_of: Date }>(
      `select lifecycle_state, customers, as_of from analytics.lifecycle_mix where account_id = $1 order by 1`,
      [account],
    );
    const states = new Map<string, number>();
    for (const s of expected.scores) states.set(s.state, (states.get(s.state) ?? 0) + 1);
    expect(mix).toEqual(
      [...states.entries()]
        .sort(([x], [y]) => x.localeCompare(y))
        .map(([lifecycle_state, customers]) => ({ lifecycle_state, customers, as_of: AS_OF })),
    );
    // The score bins of the dashboards: every customer in one bin of each measure, sums kept.
    const { rows: bins } = await t.pool.query<{ measure: string; customers: number; total: number }>(
      `select measure, sum(customers)::int as customers, sum(total) as total from analytics.score_bins
        where account_id = $1 and as_of = $2 group by 1 order by 1`,
      [account, AS_OF],
    );
    const sum = (f: (s: (typeof expected.scores)[number]) => number) =>
      expected.scores.reduce((n, x) => n + f(x), 0);
    expect(bins.map((b) => [b.measure, b.customers])).toEqual([
      ['churn_risk', 3],
      ['lifetime_value', 3],
      ['realised_revenue', 3],
    ]);
    expect(bins[0]!.total).toBeCloseTo(
      sum((x) => x.churnRisk),
      9,
    );
    expect(bins[1]!.total).toBeCloseTo(
      sum((x) => x.lifetimeValue),
      2,
    );
    // And the cohort activity: month 0 of the cohorts holds every counted customer once.
    const { rows: cohorts } = await t.pool.query<{ n: number }>(
      `select sum(customers)::int as n from analytics.cohort_activity where account_id = $1 and months_since = 0`,
      [account],
    );
    expect(cohorts[0]!.n).toBe(3);
  });

  it('given at least 100 repeat customers, then BG/NBD + Gamma-Gamma are fitted and their parameters stored on every row and in model_fits', async () => {
    const account = randomUUID();
    const { orders } = simulatedOrders(600, AS_OF, 11);
    await insertOrders(t, account, orders);
    const outcome = await recomputeAccount(deps, account, AS_OF);
    expect(outcome.model).toBe('bgnbd-gg');
    expect(outcome.repeatCustomers).toBeGreaterThanOrEqual(100);
    const rows = [...(await scoresOf(account)).values()];
    expect(rows).toHaveLength(outcome.customers);
    const params = rows[0]!.model_params as {
      bgnbd: Record<string, number>;
      gamma_gamma: Record<string, number> | null;
    };
    expect(Object.keys(params.bgnbd).sort()).toEqual(['a', 'alpha', 'b', 'r']);
    expect(
      rows.every((r) => r.model === 'bgnbd-gg' && JSON.stringify(r.model_params) === JSON.stringify(params)),
    ).toBe(true);
    expect(new Set(rows.map((r) => r.lifecycle_state)).size).toBeGreaterThan(1);
    const { rows: fits } = await t.pool.query<{
      params: { bgnbd: Record<string, number> };
      converged: boolean;
      log_likelihood: number;
    }>(`select * from analytics.model_fits where account_id = $1`, [account]);
    expect(fits).toHaveLength(1);
    expect(fits[0]!.converged).toBe(true);
    expect(fits[0]!.log_likelihood).toBeLessThan(0);
    expect(fits[0]!.params.bgnbd).toMatchObject({
      ...params.bgnbd,
      iterations: expect.any(Number) as number,
    });
  });

  it('given a trained fit whose predictions come out NaN, then the account is scored with the heuristic and the rejected fit is kept', async () => {
    const account = randomUUID();
    await insertOrders(t, account, steadyOrders(300, AS_OF));
    const outcome = await recomputeAccount(deps, account, AS_OF);
    expect(outcome).toMatchObject({ model: 'heuristic', fallbackReason: 'bgnbd_predictions_not_finite' });
    expect(outcome.repeatCustomers).toBeGreaterThanOrEqual(100);
    const rows = [...(await scoresOf(account)).values()];
    expect(rows).toHaveLength(300);
    expect(rows.every((r) => r.model === 'heuristic' && Number.isFinite(r.predicted_value))).toBe(true);
    const { rows: fits } = await t.pool.query(
      `select converged, params from analytics.model_fits where account_id = $1`,
      [account],
    );
    expect(fits).toEqual([
      {
        converged: false,
        params: expect.objectContaining({
          fallback_reason: 'bgnbd_predictions_not_finite',
          rejected_bgnbd: expect.objectContaining({ r: expect.any(Number) as number }) as unknown,
        }) as unknown,
      },
    ]);
  });

  it('given a recompute while readers keep querying, then every reader sees one whole recompute, never a mix', async () => {
    const account = randomUUID();
    const first = simulatedOrders(4000, AS_OF, 21);
    await insertOrders(t, account, first.orders);
    const counts = [(await recomputeAccount(deps, account, AS_OF)).customers];
    const seen: { n: number; asOfs: number }[] = [];
    let reading = true;
    const reader = async () => {
      while (reading) {
        const { rows } = await t.pool.query<{ n: number; as_ofs: number }>(
          `select count(*)::int as n, count(distinct as_of)::int as as_ofs
             from analytics.customer_scores where account_id = $1`,
          [account],
        );
        seen.push({ n: rows[0]!.n, asOfs: rows[0]!.as_ofs });
      }
    };
    const readers = [reader(), reader()];
    try {
      for (let k = 1; k <= 3; k++) {
        // Each round adds 1,000 customers, so each recompute has its own row count.
        await insertOrders(t, account, simulatedOrders(1000, AS_OF, 21 + k).orders);
        const outcome = await recomputeAccount(deps, account, new Date(AS_OF.getTime() + k * 60_000));
        counts.push(outcome.customers);
      }
    } finally {
      reading = false;
      await Promise.all(readers);
    }
    expect(seen.length).toBeGreaterThan(10);
    for (const s of seen) {
      expect(counts).toContain(s.n);
      expect(s.asOfs).toBe(1);
    }
    // Exactly one partition of the account is attached, and nothing is left over.
    const { rows: tables } = await t.pool.query<{ relname: string }>(
      `select relname from pg_class where relname like $1 and relkind = 'r'`,
      [`cs_${account.replace(/-/g, '')}_%`],
    );
    expect(tables).toHaveLength(1);
  });

  it('given customers that no longer have orders, and rows seeded straight into customer_scores, then the next recompute replaces them all', async () => {
    const account = randomUUID();
    const [keep, gone, seeded] = [randomUUID(), randomUUID(), randomUUID()];
    await insertOrders(t, account, [
      { customerId: keep, orderDate: day('2026-10-01'), amount: 10 },
      { customerId: gone, orderDate: day('2026-10-02'), amount: 10 },
    ]);
    await recomputeAccount(deps, account, AS_OF);
    expect((await scoresOf(account)).size).toBe(2);
    await t.pool.query(
      `insert into analytics.customer_scores (account_id, customer_id, churn_risk, lifecycle_state, p_alive,
         expected_purchases, expected_spend, realised_revenue, predicted_value, lifetime_value, is_holdout, model,
         model_params, horizon_days, as_of)
       values ($1, $2, 0.5, 'Stable', 0.5, 1, 1, 1, 1, 1, false, 'heuristic', '{}', 365, now())`,
      [account, seeded],
    );
    await t.pool.query(
      `update read_models.orders set cancelled_at = now() where account_id = $1 and customer_id = $2`,
      [account, gone],
    );
    await recomputeAccount(deps, account, new Date(AS_OF.getTime() + 1000));
    expect([...(await scoresOf(account)).keys()]).toEqual([keep]);

    await t.pool.query(`update read_models.orders set cancelled_at = now() where account_id = $1`, [account]);
    const outcome = await recomputeAccount(deps, account, new Date(AS_OF.getTime() + 2000));
    expect(outcome).toMatchObject({ customers: 0, model: null });
    expect((await scoresOf(account)).size).toBe(0);
  });

  it('given the cohort refresh fails, then the scores are in, the failure is logged, and the next recompute refreshes', async () => {
    const account = randomUUID();
    await insertOrders(t, account, [{ customerId: randomUUID(), orderDate: day('2026-10-01'), amount: 10 }]);
    const warnings: [string, Record<string, unknown> | undefined][] = [];
    const logger = {
      ...silentLogger,
      warn: (event: string, ctx?: Record<string, unknown>) => void warnings.push([event, ctx]),
    };
    // The cohort refresh is a statement of its own: a missing table makes it fail like a timeout would.
    await t.pool.query(`alter table analytics.cohort_activity rename to cohort_activity_away`);
    try {
      const outcome = await recomputeAccount({ ...deps, logger }, account, AS_OF);
      expect(outcome.customers).toBe(1);
    } finally {
      await t.pool.query(`alter table analytics.cohort_activity_away rename to cohort_activity`);
    }
    expect((await scoresOf(account)).size).toBe(1);
    expect(warnings).toEqual([
      ['cohort_activity_not_refreshed', { accountId: account, code: '42P01', error: 'error' }],
    ]);
    await recomputeAccount(deps, account, AS_OF);
    const { rows } = await t.pool.query(
      `select customers from analytics.cohort_activity where account_id = $1`,
      [account],
    );
    expect(rows).toEqual([{ customers: 1 }]);
  });

  it('given a build table left by a recompute that died before its swap, then the next recompute drops it', async () => {
    const account = randomUUID();
    const orphan = `cs_${account.replace(/-/g, '')}_deadbeef`;
    await t.pool.query(`create table analytics."${orphan}" (like analytics.customer_scores)`);
    await insertOrders(t, account, [{ customerId: randomUUID(), orderDate: day('2026-10-01'), amount: 10 }]);
    await recomputeAccount(deps, account, AS_OF);
    const { rows } = await t.pool.query(`select to_regclass($1) as t`, [`analytics."${orphan}"`]);
    expect(rows[0]).toEqual({ t: null });
    expect((await scoresOf(account)).size).toBe(1);
  });
});
