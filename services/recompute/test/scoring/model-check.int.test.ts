// The recompute's model-choice step on CDNOW (2,357 customers, orders of 1997-01-01 to 1998-06-30) in
// a real database: as of 1998-06-30 it holds out the paper's 39 weeks, checks both models on them,
// stores the diagnostics in analytics.model_fits and scores with the chosen one refitted on all 78.
import { randomUUID } from 'node:crypto';
import { existsSync, readFileSync } from 'node:fs';
import { join, resolve } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createTestEnv, REPO_ROOT, type TestEnv } from '@holdfast/testing';
import { DEFAULT_READ_MODEL_SCHEMA } from '@holdfast/read-models';
import { recomputeAccount, type RecomputeDeps } from '../../src/scoring/recompute-account.js';
import { insertOrders, prepareSchemas, type FixtureOrder } from './testing/read-model-fixture.js';

let t: TestEnv;
let deps: RecomputeDeps;

beforeAll(async () => {
  t = await createTestEnv('recompute-model-check');
  await prepareSchemas(t);
  deps = { pool: t.pool, readModelSchema: DEFAULT_READ_MODEL_SCHEMA };
});
afterAll(() => t?.close());

const CDNOW_DIR = process.env.CDNOW_DIR ?? resolve(REPO_ROOT, '../shared/data/cdnow');

/** CDNOW_sample.txt (`master_id sample_id yyyymmdd n_cds dollars`) as orders, one UUID per customer. */
function cdnowOrders(): FixtureOrder[] {
  const file = join(CDNOW_DIR, 'CDNOW_sample.txt');
  if (!existsSync(file)) throw new Error(`CDNOW_sample.txt not found in ${CDNOW_DIR}: set CDNOW_DIR`);
  const ids = new Map<string, string>();
  return readFileSync(file, 'utf8')
    .trim()
    .split(/\r?\n/)
    .map((line) => {
      const [, sample, ymd, , dollars] = line.trim().split(/\s+/) as [string, string, string, string, string];
      let id = ids.get(sample);
      if (id === undefined) ids.set(sample, (id = randomUUID()));
      const date = `${ymd.slice(0, 4)}-${ymd.slice(4, 6)}-${ymd.slice(6, 8)}T12:00:00Z`;
      return { customerId: id, orderDate: new Date(date), amount: Number(dollars) };
    });
}

interface Candidate {
  model: string;
  failure: string | null;
  fit: Record<string, number>;
  diagnostics: {
    correlation: number;
    trackingError: number;
    actualPurchases: number;
    meanAbsoluteError: number;
  };
}

describe('the model-choice step', () => {
  it('given CDNOW as of 1998-06-30, then the 39/39-week check picks Pareto/NBD, stores its diagnostics and scores with it', async () => {
    const account = randomUUID();
    await insertOrders(t, account, cdnowOrders());
    const asOf = new Date('1998-06-30T23:00:00Z');

    const outcome = await recomputeAccount(deps, account, asOf);

    expect(outcome).toMatchObject({
      customers: 2357,
      model: 'pareto-nbd-gg',
      fallbackReason: null,
      holdoutChoice: { model: 'pareto-nbd', reason: 'lower_mean_absolute_error' },
    });
    const { rows: fits } = await t.pool.query<{
      model: string;
      params: { pareto_nbd: Record<string, number> };
      holdout_weeks: number;
      holdout_customers: number;
      holdout_choice: string;
      holdout_reason: string;
      holdout_correlation: number;
      holdout_aggregate_error: number;
      holdout_mae: number;
      calibration_error: number;
      reliability: { predicted: number; observed: number; customers: number }[];
      holdout_candidates: Candidate[];
    }>(`select * from analytics.model_fits where account_id = $1`, [account]);
    expect(fits).toHaveLength(1);
    const fit = fits[0]!;
    expect(fit).toMatchObject({
      model: 'pareto-nbd-gg',
      holdout_weeks: 39,
      holdout_customers: 2357,
      holdout_choice: 'pareto-nbd',
      holdout_reason: 'lower_mean_absolute_error',
    });
    // The calibration fits are CDNOW's published ones; the diagnostics those of the paper's split.
    const [bgnbd, pareto] = fit.holdout_candidates as [Candidate, Candidate];
    expect(bgnbd.fit.r).toBeCloseTo(0.2426, 4);
    expect(pareto.fit.r).toBeCloseTo(0.5533, 4);
    expect(bgnbd.diagnostics.actualPurchases).toBe(1882);
    expect(bgnbd.diagnostics.trackingError).toBeCloseTo(-0.041, 3);
    expect(bgnbd.diagnostics.correlation).toBeCloseTo(0.626, 3);
    expect(pareto.diagnostics.correlation).toBeCloseTo(0.63, 3);
    expect(fit.holdout_correlation).toBeCloseTo(pareto.diagnostics.correlation, 12);
    expect(fit.holdout_mae).toBeCloseTo(pareto.diagnostics.meanAbsoluteError, 12);
    expect(fit.holdout_aggregate_error).toBeCloseTo(-0.115, 3);
    expect(fit.reliability).toHaveLength(10);
    expect(fit.reliability.reduce((s, b) => s + b.customers, 0)).toBe(2357);
    expect(fit.calibration_error).toBeGreaterThan(0);
    expect(fit.calibration_error).toBeLessThan(0.1);
    // Refitted on all 78 weeks: not the calibration fit.
    expect(fit.params.pareto_nbd.r).not.toBeCloseTo(pareto.fit.r!, 3);
    const { rows } = await t.pool.query<{ model: string; n: number }>(
      `select model, count(*)::int as n from analytics.customer_scores where account_id = $1 group by model`,
      [account],
    );
    expect(rows).toEqual([{ model: 'pareto-nbd-gg', n: 2357 }]);
    // Every trained score carries its 90% intervals around the point estimates.
    const { rows: scores } = await t.pool.query<{
      expected_purchases: number;
      expected_purchases_low: number;
      expected_purchases_high: number;
      lifetime_value: string;
      lifetime_value_low: string;
      lifetime_value_high: string;
      realised_revenue: string;
    }>(`select * from analytics.customer_scores where account_id = $1`, [account]);
    let inside = 0;
    for (const r of scores) {
      expect(r.expected_purchases_low).toBeGreaterThanOrEqual(0);
      expect(r.expected_purchases_high).toBeGreaterThanOrEqual(r.expected_purchases_low);
      if (
        r.expected_purchases >= r.expected_purchases_low &&
        r.expected_purchases <= r.expected_purchases_high
      )
        inside++;
      expect(Number(r.lifetime_value_low)).toBeGreaterThanOrEqual(Number(r.realised_revenue) - 1e-4);
      expect(Number(r.lifetime_value_high)).toBeGreaterThanOrEqual(Number(r.lifetime_value_low));
    }
    // The mean lies inside the interval but for the almost surely lapsed, whose interval is [0, 0].
    expect(inside / scores.length).toBeGreaterThan(0.95);
  });

  it('given the check switched off, then BG/NBD as before and no holdout columns', async () => {
    const account = randomUUID();
    await insertOrders(t, account, cdnowOrders());
    const outcome = await recomputeAccount(
      { ...deps, settings: { horizonDays: 365, discountRate: 0.1, modelCheck: false } },
      account,
      new Date('1998-06-30T23:00:00Z'),
    );
    expect(outcome).toMatchObject({ model: 'bgnbd-gg', holdoutChoice: null });
    const { rows } = await t.pool.query(
      `select holdout_weeks, holdout_choice, calibration_error, reliability, holdout_candidates
         from analytics.model_fits where account_id = $1`,
      [account],
    );
    expect(rows).toEqual([
      {
        holdout_weeks: null,
        holdout_choice: null,
        calibration_error: null,
        reliability: null,
        holdout_candidates: null,
      },
    ]);
  });
});
