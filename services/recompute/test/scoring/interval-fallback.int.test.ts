/**
 * The write phase checks the intervals as it writes them (each distinct history's once): when one
 * comes out non-finite the partition being built is rolled back, the stage reader stays usable, and
 * the account is written again with the scorer's fallback (what `recomputeAccount` does in a loop).
 */
import { randomUUID } from 'node:crypto';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import {
  daysPerUnit,
  fitAccount,
  IntervalScorer,
  scoringCache,
  type AccountFit,
  type ScoreOptions,
} from '@holdfast/analytics';
import { createTestEnv, type TestEnv } from '@holdfast/testing';
import { DEFAULT_READ_MODEL_SCHEMA } from '@holdfast/read-models';
import { TIME_UNIT } from '../../src/scoring/score-rows.js';
import {
  dropStage,
  IntervalsNotFinite,
  scoredLines,
  stageAccount,
} from '../../src/scoring/stream-account.js';
import { newScoreTableName, replaceAccountScores } from '../../src/scoring/write-scores.js';
import { writeAccountScores } from '../../src/scoring/recompute-account.js';
import { silentLogger } from '@holdfast/platform';
import { insertOrders, prepareSchemas, simulatedOrders } from './testing/read-model-fixture.js';

let t: TestEnv;
const AS_OF = new Date('2026-11-22T02:00:00.000Z');

beforeAll(async () => {
  t = await createTestEnv('recompute-interval-fallback');
  await prepareSchemas(t);
});
afterAll(() => t?.close());

describe('intervals checked as they are written', () => {
  it('given a fit whose spend draws overflow, when the account is written, then the write is rolled back with IntervalsNotFinite and written again with the fallback: every row has finite intervals', async () => {
    const account = randomUUID();
    await insertOrders(t, account, simulatedOrders(600, AS_OF, 11).orders);
    const reader = await t.pool.connect();
    const writer = await t.pool.connect();
    const table = newScoreTableName(account);
    const stage = `${table}_in`;
    try {
      const unitDays = daysPerUnit(TIME_UNIT);
      const staged = (await stageAccount(
        reader,
        writer,
        DEFAULT_READ_MODEL_SCHEMA,
        account,
        AS_OF,
        stage,
        unitDays,
      ))!;
      const horizon = 365 / unitDays;
      const options: ScoreOptions = { asOf: AS_OF, horizon, discountRate: 0.1, timeUnit: TIME_UNIT };
      const fitted = fitAccount(staged.statistics, options);
      expect(fitted.model).toBe('bgnbd-gg');
      // A covariance of ln(p, q, γ) so wide that its draws overflow: some value interval is not finite.
      const p = fitted.params as Extract<AccountFit['params'], { bgnbd: unknown }>;
      const wide = [0, 1, 2].map((i) => [0, 1, 2].map((j) => (i === j ? 1e6 : 0)));
      const fit: AccountFit = {
        ...fitted,
        params: { ...p, gammaGamma: { ...p.gammaGamma!, logCovariance: wide } },
      };
      const rfm = staged.statistics.rfm;
      const groups = {
        x: rfm.frequency,
        tx: rfm.recency,
        T: rfm.T,
        weight: rfm.weight,
        customers: rfm.customers,
      };
      const scorer = IntervalScorer.of(fit, groups, horizon, { seed: 1 })!;
      const cache = scoringCache();
      const meta = { accountId: account, asOf: AS_OF, horizonDays: 365, fit, stage };

      // One write with the scorer alone: rolled back, nothing built.
      await expect(
        replaceAccountScores(
          writer,
          meta,
          table,
          scoredLines(reader, stage, account, fit, options, cache, unitDays, scorer),
          null,
        ),
      ).rejects.toBeInstanceOf(IntervalsNotFinite);
      const built = await t.pool.query(`select to_regclass($1) as t`, [`analytics."${table}"`]);
      expect(built.rows[0].t).toBeNull();
      const none = await t.pool.query(
        `select count(*)::int as n from analytics.customer_scores where account_id = $1`,
        [account],
      );
      expect(none.rows[0].n).toBe(0);

      // What recomputeAccount runs: the same write, then again with the fallback (the reader is usable).
      const warnings: unknown[] = [];
      const logger = {
        ...silentLogger,
        warn: (event: string, fields?: unknown) => warnings.push({ event, fields }),
      };
      const fallback = (await writeAccountScores(
        { reader, writer, logger },
        { scores: meta, table, options, cache, unitDays, fitRow: null },
        IntervalScorer.of(fit, groups, horizon, { seed: 1 }),
        true,
      ))!;
      expect(fallback.parameterDraws).toBe(false);
      expect(warnings).toEqual([
        { event: 'intervals_not_finite', fields: { accountId: account, parameterDraws: true } },
      ]);
      expect(fallback.allFinite).toBe(true);
      const { rows } = await t.pool.query<{ n: number; finite: number }>(
        `select count(*)::int as n,
                count(*) filter (where lifetime_value_high is not null and lifetime_value_high < 'Infinity'
                                   and expected_purchases_high is not null)::int as finite
           from analytics.customer_scores where account_id = $1`,
        [account],
      );
      expect(rows[0]).toEqual({ n: rfm.customers, finite: rfm.customers });
    } finally {
      await dropStage(writer, stage);
      reader.release();
      writer.release();
    }
  }, 120_000);
});
