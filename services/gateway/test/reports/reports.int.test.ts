import { randomUUID } from 'node:crypto';
import { Ajv2020 } from 'ajv/dist/2020.js';
import type { Kysely } from 'kysely';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { mintApiKey } from '@holdfast/control-plane';
import { REPORT_NAMES, renderDashboard, type ReportByName, type ReportName } from '@holdfast/dashboards';
import { migrateAnalytics, migrateCampaigns } from '@holdfast/migrations';
import { refreshCohortActivity, refreshFunnelCounts, refreshScoreBins } from '@holdfast/recompute';
import { createTestEnv, type TestEnv } from '@holdfast/testing';
import { buildOpenApiDocument } from '../../src/openapi/document.js';
import { REPORT_SCHEMAS } from '../../src/openapi/report-schemas.js';
import {
  call,
  newAccount,
  startGateway,
  type AccountFixture,
  type Answer,
  type TestGateway,
} from '@holdfast/testing/services';
import { REPORT_DETAIL } from '../../src/reports/reports-router.js';

let t: TestEnv;
let gw: TestGateway;
/** A: the fixture shop (reporting currency EUR); B: another account with data of its own. */
let a: AccountFixture & { readKey: string };
let b: AccountFixture & { readKey: string };
const NOW = new Date('2026-11-20T12:00:00Z');
const FIT_1 = new Date('2026-11-01T02:00:00Z');
const FIT_2 = new Date('2026-11-19T02:00:00Z');

const doc = buildOpenApiDocument();
const ajv = new Ajv2020({ strict: false, validateFormats: false });
ajv.addSchema({ $id: 'doc', components: doc.components });

const get = (key: string, path: string, headers?: Record<string, string>) =>
  call(gw.url, 'GET', path, { key, headers });

/** GET /v1/reports/{name} with `key`: 200 and valid against the report's schema and `Report`. */
async function report<N extends ReportName>(key: string, name: N): Promise<ReportByName[N]> {
  const r: Answer = await get(key, `/v1/reports/${name}`);
  expect(r.status, r.text).toBe(200);
  for (const schema of [REPORT_SCHEMAS[name], 'Report']) {
    const validate =
      ajv.getSchema(`doc#/components/schemas/${schema}`) ??
      ajv.compile({ $ref: `doc#/components/schemas/${schema}` });
    expect(validate(r.json), `${schema}: ${JSON.stringify(validate.errors)}`).toBe(true);
  }
  return r.json as ReportByName[N];
}

/** The body rows of the table captioned `caption` in `html`, cells as text. */
function table(html: string, caption: string): string[][] {
  const start = html.indexOf(`<caption>${caption}</caption>`);
  expect(start, caption).toBeGreaterThanOrEqual(0);
  const body = /<tbody>(.*?)<\/tbody>/.exec(html.slice(start))?.[1] ?? '';
  return [...body.matchAll(/<tr>(.*?)<\/tr>/g)].map((m) =>
    [...m[1]!.matchAll(/<t[hd][^>]*>(.*?)<\/t[hd]>/g)].map((c) => c[1]!),
  );
}

async function order(
  account: string,
  customer: string,
  at: string,
  amount: number,
  o: { cancelled?: boolean } = {},
) {
  await t.pool.query(
    `insert into read_models.orders (account_id, order_id, customer_id, order_date, order_amount, product_name,
       cancelled_at, first_seen_at, updated_at)
     values ($1, $2, $3, $4, $5, 'p', $6, $4, $4)`,
    [account, randomUUID(), customer, at, amount, o.cancelled ? at : null],
  );
}

async function score(account: string, risk: number, revenue: number, ltv: number, state = 'Stable') {
  await t.pool.query(
    `insert into analytics.customer_scores (account_id, customer_id, external_id, churn_risk, lifecycle_state, p_alive,
       expected_purchases, expected_spend, realised_revenue, predicted_value, lifetime_value, is_holdout, model,
       model_params, horizon_days, as_of)
     values ($1, gen_random_uuid(), null, $2::float8, $3, 1 - $2::float8, 1, 1, $4::numeric, $5::numeric - $4::numeric, $5, false, 'bgnbd-gg', '{}', 365, $6)`,
    [account, risk, state, revenue, ltv, FIT_2],
  );
}

async function decision(account: string, type: string, status: string, n: number) {
  const treated = ['planned', 'sending', 'sent', 'possibly_sent', 'failed', 'sandbox_simulated'].includes(
    status,
  );
  for (let i = 0; i < n; i++)
    await t.pool.query(
      `insert into analytics.campaign_assignments (assignment_id, account_id, run_id, campaign_type, customer_id, arm,
         channel, provider, status, tracking_id, assigned_at, sent_at, claimed_at)
       values (gen_random_uuid(), $1, gen_random_uuid(), $2, gen_random_uuid(), $3, 'email', 'p', $4,
         case when $5 then 'hft_' || left(md5(gen_random_uuid()::text), 24) end, $6, $6, $6)`,
      [account, type, status === 'held_out' ? 'holdout' : 'treated', status, treated, FIT_2],
    );
}

async function attribution(account: string, type: string, revenue: number) {
  await t.pool.query(
    `insert into analytics.attributions (account_id, order_id, tracking_id, campaign_type, channel, method, order_date,
       net_revenue, attributed_at)
     values ($1, $2, 'hft_x', $3, 'email', 'exact', $4, $5, $4)`,
    [account, randomUUID(), type, FIT_2, revenue],
  );
}

async function lift(
  account: string,
  month: string,
  o: { lift: number; low: number; high: number; billable: number; final?: number },
) {
  await t.pool.query(
    `insert into analytics.lift_reports (account_id, campaign_type, period_start, period_end, treated_customers,
       holdout_customers, lift, ci_low, ci_high, p_value, significant, incremental_revenue, billable_revenue, mde,
       computed_at, test, p_value_greater, settlement_status, settles_at, settled_at, final_billable_revenue)
     values ($1, 'win_back', $2::timestamptz, $2::timestamptz + interval '1 month', 1900, 100, $3, $4, $5, 0.01,
             $4::float8 > 0, $3::float8 * 1900, $6, 9.5, $2::timestamptz + interval '1 month', 'permutation', 0.01,
             case when $7::numeric is null then 'provisional' else 'final' end,
             $2::timestamptz + interval '1 month 60 days',
             case when $7::numeric is null then null else $2::timestamptz + interval '1 month 60 days' end, $7)`,
    [account, month, o.lift, o.low, o.high, o.billable, o.final ?? null],
  );
}

async function fit(
  account: string,
  asOf: Date,
  model: 'bgnbd-gg' | 'heuristic',
  customers: number,
  repeaters: number,
) {
  const params =
    model === 'bgnbd-gg'
      ? {
          time_unit: 'weeks',
          bgnbd: { r: 0.25, alpha: 4.4, a: 0.8, b: 2.4, log_likelihood: -900 },
          gamma_gamma: { p: 6, q: 3.7, gamma: 15 },
        }
      : { time_unit: 'weeks', fallback_reason: 'too_few_repeat_customers' };
  await t.pool.query(
    `insert into analytics.model_fits (account_id, as_of, model, params, log_likelihood, customers, repeat_customers, converged)
     values ($1, $2, $3, $4, $5, $6, $7, true)`,
    [account, asOf, model, JSON.stringify(params), model === 'bgnbd-gg' ? -900 : null, customers, repeaters],
  );
}

async function mix(account: string, asOf: Date, counts: Record<string, number>) {
  for (const [state, n] of Object.entries(counts))
    await t.pool.query(
      `insert into analytics.lifecycle_mix (account_id, as_of, lifecycle_state, customers) values ($1, $2, $3, $4)`,
      [account, asOf, state, n],
    );
}

beforeAll(async () => {
  t = await createTestEnv('gw-reports');
  gw = await startGateway(t, { clock: { now: () => NOW } });
  await migrateAnalytics(t.db as unknown as Kysely<unknown>);
  await migrateCampaigns(t.db as unknown as Kysely<unknown>);
  const withReadKey = async () => {
    const acc = await newAccount(t);
    return { ...acc, readKey: (await mintApiKey(t.db, acc.accountId, 'read_live')).key };
  };
  [a, b] = await Promise.all([withReadKey(), withReadKey()]);
  await t.pool.query(
    `insert into fx.account_currencies (account_id, reporting_currency) values ($1, 'EUR')`,
    [a.accountId],
  );

  // A's orders. Cohort 2026-09: c1..c4; c1 again in October and November, c2 in November, c3's October
  // order cancelled (not counted). Cohort 2026-10: c5 (first order 2026-09-30 23:30 in Chicago, which is
  // October in UTC) and c6, c6 again in November. c7 has only a cancelled order.
  const c = Array.from({ length: 8 }, () => randomUUID());
  await order(a.accountId, c[1]!, '2026-09-03T10:00:00Z', 40);
  await order(a.accountId, c[1]!, '2026-10-05T10:00:00Z', 20);
  await order(a.accountId, c[1]!, '2026-11-06T10:00:00Z', 20);
  await order(a.accountId, c[1]!, '2026-11-07T10:00:00Z', 20);
  await order(a.accountId, c[2]!, '2026-09-10T10:00:00Z', 40);
  await order(a.accountId, c[2]!, '2026-11-10T10:00:00Z', 40);
  await order(a.accountId, c[3]!, '2026-09-12T10:00:00Z', 40);
  await order(a.accountId, c[3]!, '2026-10-12T10:00:00Z', 40, { cancelled: true });
  await order(a.accountId, c[4]!, '2026-09-30T10:00:00Z', 40);
  await order(a.accountId, c[5]!, '2026-09-30T23:30:00-05:00', 40);
  await order(a.accountId, c[6]!, '2026-10-20T10:00:00Z', 40);
  await order(a.accountId, c[6]!, '2026-11-02T10:00:00Z', 40);
  await order(a.accountId, c[7]!, '2026-10-21T10:00:00Z', 40, { cancelled: true });

  // A's scores: churn risks in bins 1, 2, 11 and (0.99 and exactly 1) 20; revenue and LTV in 1-2-5 bins.
  await score(a.accountId, 0.02, 0.5, 3);
  await score(a.accountId, 0.07, 1.5, 45);
  await score(a.accountId, 0.5, 30, 45, 'Slowing');
  await score(a.accountId, 0.99, 30, 99, 'Lapsed');
  await score(a.accountId, 1, 120, 1500, 'Lapsed');
  await mix(a.accountId, FIT_2, { Stable: 2, Slowing: 1, Lapsed: 2 });
  await mix(a.accountId, FIT_1, { Stable: 3, Overdue: 1 });
  await fit(a.accountId, FIT_1, 'heuristic', 4, 1);
  await fit(a.accountId, FIT_2, 'bgnbd-gg', 5, 2);

  await decision(a.accountId, 'win_back', 'sent', 3);
  await decision(a.accountId, 'win_back', 'possibly_sent', 1);
  await decision(a.accountId, 'win_back', 'failed', 1);
  await decision(a.accountId, 'win_back', 'held_out', 2);
  await decision(a.accountId, 'win_back', 'no_consent', 1);
  await decision(a.accountId, 'vip', 'sent', 1);
  await attribution(a.accountId, 'win_back', 30.5);
  await attribution(a.accountId, 'win_back', 19.5);
  // October: billed and settled at 21,000 (the provisional 22,800 shrank with refunds). November: the
  // interval includes zero, so nothing is billed.
  await lift(a.accountId, '2026-10-01T00:00:00Z', {
    lift: 12,
    low: 3.1,
    high: 20.9,
    billable: 22800,
    final: 21000,
  });
  await lift(a.accountId, '2026-11-01T00:00:00Z', { lift: 4, low: -2.5, high: 10.5, billable: 0 });

  // B: one of everything, with other numbers.
  await order(b.accountId, randomUUID(), '2026-06-01T10:00:00Z', 99);
  await score(b.accountId, 0.9, 99, 99, 'Overdue');
  await mix(b.accountId, FIT_2, { Overdue: 1 });
  await fit(b.accountId, FIT_2, 'heuristic', 1, 0);
  await decision(b.accountId, 'replenishment', 'sent', 7);
  await attribution(b.accountId, 'replenishment', 7);
  await lift(b.accountId, '2026-08-01T00:00:00Z', { lift: -1, low: -3, high: 1, billable: 0 });
  // What a recompute keeps for the dashboards, by the recompute's own writers.
  for (const account of [a.accountId, b.accountId]) {
    await refreshScoreBins(t.pool, account);
    await refreshCohortActivity(t.pool, 'read_models', account, NOW);
    await refreshFunnelCounts(t.pool, account, NOW);
  }
}, 90_000);

afterAll(async () => {
  await gw?.close();
  await t?.close();
});

describe('GET /v1/reports/{name}: the fixture account', () => {
  it('lifecycle-mix: one point per recompute, oldest first, every state', async () => {
    const r = await report(a.readKey, 'lifecycle-mix');
    expect(r.points).toEqual([
      { as_of: FIT_1.toISOString(), customers: { Stable: 3, Slowing: 0, Overdue: 1, Lapsed: 0 }, total: 4 },
      { as_of: FIT_2.toISOString(), customers: { Stable: 2, Slowing: 1, Overdue: 0, Lapsed: 2 }, total: 5 },
    ]);
  });

  it('churn-risk: 20 bins of 0.05 counted in the database, a risk of exactly 1 in the last', async () => {
    const r = await report(a.readKey, 'churn-risk');
    expect(r.customers).toBe(5);
    expect(r.mean).toBeCloseTo((0.02 + 0.07 + 0.5 + 0.99 + 1) / 5, 6);
    expect(r.scored_at).toBe(FIT_2.toISOString());
    const nonEmpty = r.bins.map((bin, i) => [i, bin.customers]).filter(([, n]) => n! > 0);
    expect(nonEmpty).toEqual([
      [0, 1],
      [1, 1],
      [10, 1],
      [19, 2],
    ]);
  });

  it('cohort-retention: UTC months, cancelled orders not counted, silent months 0', async () => {
    const r = await report(a.readKey, 'cohort-retention');
    expect(r.cohorts).toEqual([
      { cohort: '2026-09', customers: 4, active: [4, 1, 2] },
      { cohort: '2026-10', customers: 2, active: [2, 1] },
    ]);
  });

  it('value-distribution: revenue and lifetime value in EUR bins, with totals', async () => {
    const r = await report(a.readKey, 'value-distribution');
    expect(r.currency).toBe('EUR');
    const filled = (d: typeof r.revenue) =>
      d.bins.filter((x) => x.customers > 0).map((x) => [x.low, x.high, x.customers]);
    expect(filled(r.revenue)).toEqual([
      [0, 1, 1],
      [1, 2, 1],
      [20, 50, 2],
      [100, 200, 1],
    ]);
    expect(r.revenue.total).toBeCloseTo(182, 6);
    expect(filled(r.lifetime_value)).toEqual([
      [2, 5, 1],
      [20, 50, 2],
      [50, 100, 1],
      [1000, 2000, 1],
    ]);
    expect(r.lifetime_value.customers).toBe(5);
  });

  it('campaign-funnel: decisions by stage and attributed orders and revenue per type', async () => {
    const r = await report(a.readKey, 'campaign-funnel');
    expect(r).toEqual({
      report: 'campaign-funnel',
      currency: 'EUR',
      types: [
        {
          campaign_type: 'vip',
          decided: 1,
          held_out: 0,
          not_sent: 0,
          treated: 1,
          sent: 1,
          failed: 0,
          attributed_orders: 0,
          attributed_revenue: 0,
        },
        {
          campaign_type: 'win_back',
          decided: 8,
          held_out: 2,
          not_sent: 1,
          treated: 5,
          sent: 4,
          failed: 1,
          attributed_orders: 2,
          attributed_revenue: 50,
        },
      ],
    });
  });

  it('lift: per month with its interval, MDE, what is billed and why', async () => {
    const r = await report(a.readKey, 'lift');
    expect(r.months.map((m) => [m.period_start, m.billed, m.final_billable_revenue, m.mde])).toEqual([
      ['2026-10-01T00:00:00.000Z', true, 21000, 9.5],
      ['2026-11-01T00:00:00.000Z', false, null, 9.5],
    ]);
    expect(r.months[0]!.why).toMatch(
      /^Billed €21,000\.00 for win_back in October 2026: .* Final since 2026-12-31/,
    );
    expect(r.months[1]!.why).toMatch(
      /^Not billed for win_back in November 2026: .*\(-€2\.50 to €10\.50\) includes zero/,
    );
    expect(r.months[1]!.interval).toEqual({ low: -2.5, high: 10.5 });
  });

  it('model-fit: the fits newest first with their parameters', async () => {
    const r = await report(a.readKey, 'model-fit');
    expect(r.fits.map((f) => [f.as_of, f.model, f.customers, f.repeat_customers, f.fallback_reason])).toEqual(
      [
        [FIT_2.toISOString(), 'bgnbd-gg', 5, 2, null],
        [FIT_1.toISOString(), 'heuristic', 4, 1, 'too_few_repeat_customers'],
      ],
    );
    expect(r.fits[0]!.bgnbd).toEqual({ r: 0.25, alpha: 4.4, a: 0.8, b: 2.4 });
  });

  it('the plots drawn from the answers show the fixture’s numbers', async () => {
    const cohorts = renderDashboard('cohort-retention', await report(a.readKey, 'cohort-retention'));
    expect(
      table(cohorts, 'Share of each monthly cohort ordering again, by month since the first order'),
    ).toEqual([
      ['2026-09', '100.0%', '25.0%', '50.0%'],
      ['2026-10', '100.0%', '50.0%', '–'],
    ]);
    // The heat map's cells carry the same shares.
    expect([...cohorts.matchAll(/data-value="([^"]+)"/g)].map((m) => Number(m[1]))).toEqual([
      1, 0.25, 0.5, 1, 0.5,
    ]);
    const churn = renderDashboard('churn-risk', await report(a.readKey, 'churn-risk'));
    const rows = table(churn, 'Customers by churn risk');
    expect(rows[0]).toEqual(['0.00–0.05', '1']);
    expect(rows[19]).toEqual(['0.95–1.00', '2']);
    const funnel = renderDashboard('campaign-funnel', await report(a.readKey, 'campaign-funnel'));
    expect(table(funnel, 'Decisions per type')[1]).toEqual([
      'win_back',
      '8',
      '2',
      '1',
      '5',
      '4',
      '1',
      '2',
      '€50.00',
    ]);
    const billed = renderDashboard('lift', await report(a.readKey, 'lift'));
    expect(
      table(billed, 'Lift, minimum detectable effect and billing per type and month').map((r) =>
        r.slice(0, 9),
      ),
    ).toEqual([
      ['2026-11', 'win_back', '1,900', '100', '€4.00', '-€2.50 to €10.50', '€9.50', '€0.00', 'provisional'],
      ['2026-10', 'win_back', '1,900', '100', '€12.00', '€3.10 to €20.90', '€9.50', '€21,000.00', 'final'],
    ]);
  });
});

describe('GET /v1/reports/{name}: tenancy and access', () => {
  it('answers every report of the key’s own account only', async () => {
    expect((await report(b.readKey, 'lifecycle-mix')).points.map((p) => p.total)).toEqual([1]);
    const churn = await report(b.readKey, 'churn-risk');
    expect([churn.customers, churn.bins[18]!.customers]).toEqual([1, 1]);
    expect((await report(b.readKey, 'cohort-retention')).cohorts).toEqual([
      { cohort: '2026-06', customers: 1, active: [1, 0, 0, 0, 0, 0] },
    ]);
    const value = await report(b.readKey, 'value-distribution');
    expect([value.currency, value.revenue.customers, value.revenue.total]).toEqual(['USD', 1, 99]);
    expect(
      (await report(b.readKey, 'campaign-funnel')).types.map((x) => [
        x.campaign_type,
        x.sent,
        x.attributed_revenue,
      ]),
    ).toEqual([['replenishment', 7, 7]]);
    expect((await report(b.readKey, 'lift')).months.map((m) => m.period_start)).toEqual([
      '2026-08-01T00:00:00.000Z',
    ]);
    expect((await report(b.readKey, 'model-fit')).fits.map((f) => f.model)).toEqual(['heuristic']);
  });

  it('answers an account with nothing yet with empty reports, valid all the same', async () => {
    const empty = await newAccount(t);
    const key = (await mintApiKey(t.db, empty.accountId, 'read_live')).key;
    for (const name of REPORT_NAMES) {
      const r = await report(key, name);
      expect(JSON.stringify(r)).not.toMatch(/"customers":[1-9]/);
    }
  });

  it('refuses an unknown report with 404, no key with 401, an ingest key with 403', async () => {
    const unknown = await get(a.readKey, '/v1/reports/customers');
    expect([unknown.status, unknown.json]).toEqual([404, { detail: REPORT_DETAIL.noReport }]);
    expect((await call(gw.url, 'GET', '/v1/reports/lift')).status).toBe(401);
    expect((await get(a.key, '/v1/reports/lift')).status).toBe(403);
  });

  it('answers 304 to If-None-Match while the report is unchanged', async () => {
    const first = await get(a.readKey, '/v1/reports/churn-risk');
    const etag = first.headers.get('etag')!;
    expect(first.headers.get('cache-control')).toBe('private, no-cache');
    expect((await get(a.readKey, '/v1/reports/churn-risk', { 'if-none-match': etag })).status).toBe(304);
    expect((await get(b.readKey, '/v1/reports/churn-risk', { 'if-none-match': etag })).status).toBe(200);
  });
});
