import {
  checkOnHoldout,
  daysPerUnit,
  DEFAULT_MIN_REPEAT_CUSTOMERS,
  fitAccount,
  IntervalScorer,
  scoreWithFit,
  scoringCache,
  type AccountFit,
  type AccountStatistics,
  type HoldoutCheck,
  type HoldoutHistories,
  type PurchaseModel,
  type RfmGroups,
  type ScoreOptions,
  type ScoreResult,
  type ScoringCache,
} from '@holdfast/analytics';
import type { Pool, PoolClient } from '@holdfast/postgres';
import { silentLogger, type Logger } from '@holdfast/platform';
import { checkedAccountId } from './account-id.js';
import { refreshCohortActivity } from './cohort-activity.js';
import { holdoutColumns, modelFitRow, type ModelFitRow } from './model-fit.js';
import { TIME_UNIT } from './score-rows.js';
import {
  CHUNK_ROWS,
  dropStage,
  IntervalsNotFinite,
  scoredLines,
  stageAccount,
  type StagedAccount,
} from './stream-account.js';
import { newScoreTableName, replaceAccountScores, withAccountLock, type ScoreTable } from './write-scores.js';

/** How scores are computed; the defaults are documented in docs/analytics.md. */
export interface ScoringSettings {
  /** Horizon of expected_purchases and predicted_value, in days (default 365). */
  readonly horizonDays: number;
  /** Annual discount rate of predicted_value (default 0.10). */
  readonly discountRate: number;
  /** Repeat customers needed for BG/NBD + Gamma-Gamma (default 100, the package's threshold). */
  readonly minRepeatCustomers?: number;
  /**
   * Whether the purchase model is chosen on a holdout (BG/NBD or Pareto/NBD, `checkOnHoldout`);
   * default true. Off: BG/NBD, as before the check existed.
   */
  readonly modelCheck?: boolean;
  /** Whether 90% intervals are computed for trained models (`scoreIntervals`); default true. */
  readonly intervals?: boolean;
}

export const DEFAULT_SCORING: ScoringSettings = Object.freeze({ horizonDays: 365, discountRate: 0.1 });

export interface RecomputeDeps {
  readonly pool: Pool;
  /** Schema of the projector's read models (orders, customers). */
  readonly readModelSchema: string;
  readonly settings?: ScoringSettings;
  readonly logger?: Logger;
}

/** What one account's recompute did, with the time of each phase. */
export interface RecomputeOutcome {
  readonly accountId: string;
  readonly asOf: Date;
  readonly orders: number;
  readonly customers: number;
  readonly repeatCustomers: number;
  readonly model: ScoreResult['model'] | null;
  readonly fallbackReason: string | null;
  /** The model the holdout check chose and why, or null when there was no check. */
  readonly holdoutChoice: { readonly model: PurchaseModel | null; readonly reason: string } | null;
  /** Every order and customer row of the account in the snapshot scored. */
  readonly snapshot: { readonly orders: number; readonly customers: number };
  /** Distinct (x, t_x, T) and (x, m_x) groups the fit ran on (what its memory grows with). */
  readonly groups: { readonly rfm: number; readonly spend: number };
  /** The account's zone as read (null: the read models do not exist yet). */
  readonly storeZone: string | null;
  /**
   * load: pass 1 (read, summarise, stage); score: the fit; write: pass 2 (score, COPY) and the swap;
   * cohorts: refreshing analytics.cohort_activity (the dashboards' cohort retention).
   */
  readonly ms: {
    readonly load: number;
    readonly score: number;
    readonly write: number;
    readonly cohorts: number;
  };
}

/**
 * Recomputes one account's customer scores as of `asOf`, streamed: memory stays bounded whatever the
 * account's size (docs/analytics.md "Memory").
 *
 * 1. load: `stageAccount` reads the orders customer by customer in one snapshot, summarises each
 *    customer in their local time zone (their US ZIP's, else the account's store_timezone) as of the
 *    as-of day there, stages the summaries in an unlogged table and groups the fit's statistics, and,
 *    for the model check, each customer's calibration history and holdout purchases (grouped too);
 * 2. score (the fit): the model check (`checkOnHoldout` on the grouped calibration/holdout histories:
 *    BG/NBD or Pareto/NBD), then `fitAccount` with the chosen model on all the grouped statistics
 *    (the chosen model + Gamma-Gamma with ≥ 100 repeat customers, else the heuristic), checked on
 *    every distinct history ({@link guardedFit}), and the intervals' parameter draws
 *    (`IntervalScorer.of`);
 * 3. write: `scoredLines` scores the staged summaries in chunks, with their 90% intervals (each
 *    distinct history's computed once, and checked there: a non-finite one rolls the write back and
 *    it is done again with the scorer's fallback), and `replaceAccountScores` streams them into a new
 *    partition and swaps it in atomically, with the fit and the check in model_fits.
 *
 * @example
 * const outcome = await recomputeAccount({ pool, readModelSchema: 'read_models' }, accountId, new Date());
 * outcome.model; // 'bgnbd-gg' | 'pareto-nbd-gg' | 'heuristic' | null (no orders)
 */
export async function recomputeAccount(
  deps: RecomputeDeps,
  accountId: string,
  asOf: Date,
): Promise<RecomputeOutcome> {
  const settings = deps.settings ?? DEFAULT_SCORING;
  const logger = deps.logger ?? silentLogger;
  const account = checkedAccountId(accountId);
  const unitDays = daysPerUnit(TIME_UNIT);
  const horizon = settings.horizonDays / unitDays;
  const scored = await withAccountLock(deps.pool, account, async (writer) => {
    const reader = await deps.pool.connect();
    const table = newScoreTableName(account);
    const stage = `${table}_in`;
    try {
      const t0 = performance.now();
      let staged = await stageAccount(
        reader,
        writer,
        deps.readModelSchema,
        account,
        asOf,
        stage,
        unitDays,
        settings.modelCheck ?? true,
      );
      const t1 = performance.now();
      const customers = staged?.statistics.rfm.customers ?? 0;
      const check = staged?.holdout ? checkModels(staged.holdout, settings) : null;
      // The check's histories are not needed past it: let them go before the fit and the write.
      if (staged) staged = { ...staged, holdout: null };
      const options: ScoreOptions = {
        asOf,
        horizon,
        discountRate: settings.discountRate,
        timeUnit: TIME_UNIT,
        minRepeatCustomers: settings.minRepeatCustomers,
        purchaseModel: check?.chosen ?? 'bgnbd',
      };
      const { fit, rejected, cache, stats } = guardedFit(staged, options);
      const intervals =
        settings.intervals === false || customers === 0
          ? null
          : IntervalScorer.of(fit, tripletGroups(stats.rfm), horizon, { seed: 1 });
      const t2 = performance.now();
      const fitSettings = {
        time_unit: TIME_UNIT,
        horizon_days: settings.horizonDays,
        discount_rate: settings.discountRate,
        store_timezone: staged?.storeZone ?? null,
      };
      const fitRow =
        customers > 0
          ? modelFitRow(fit, customers, fitSettings, rejected, check ? holdoutColumns(check) : null)
          : null;
      await writeAccountScores(
        { reader, writer, logger },
        {
          scores: { accountId: account, asOf, horizonDays: settings.horizonDays, fit, stage },
          table,
          options,
          cache,
          unitDays,
          fitRow,
        },
        customers > 0 ? intervals : null,
        customers > 0,
      );
      const t3 = performance.now();
      return {
        accountId,
        asOf,
        orders: staged?.orders ?? 0,
        customers,
        repeatCustomers: fit.repeatCustomers,
        model: customers > 0 ? fit.model : null,
        fallbackReason: fit.fallbackReason,
        holdoutChoice: check ? { model: check.chosen, reason: check.reason } : null,
        snapshot: staged?.snapshot ?? { orders: 0, customers: 0 },
        groups: staged?.groupCounts ?? { rfm: 0, spend: 0 },
        storeZone: staged?.storeZone ?? null,
        ms: { load: Math.round(t1 - t0), score: Math.round(t2 - t1), write: Math.round(t3 - t2) },
      };
    } finally {
      reader.release();
      await dropStage(writer, stage);
    }
  });
  const t4 = performance.now();
  // The dashboards' cohort retention, from the orders (seconds at a million customers: kept here, not
  // computed per page view). The scores are what a recompute is for and they are in: when the refresh
  // fails (a statement timeout on a loaded database, a lost connection) the previous cohorts stay,
  // the failure is logged, and the next recompute tries again.
  try {
    await refreshCohortActivity(deps.pool, deps.readModelSchema, account, asOf);
  } catch (err) {
    logger.warn('cohort_activity_not_refreshed', {
      accountId,
      code: (err as { code?: string }).code ?? null,
      error: err instanceof Error ? err.name : 'unknown',
    });
  }
  const outcome: RecomputeOutcome = {
    ...scored,
    ms: { ...scored.ms, cohorts: Math.round(performance.now() - t4) },
  };
  logger.info('scores_recomputed', { ...outcome, asOf: asOf.toISOString() });
  return outcome;
}

/** What one write of an account's scores needs (`writeAccountScores`). */
export interface ScoresWrite {
  readonly scores: ScoreTable & { readonly fit: AccountFit };
  /** The new partition's name (`newScoreTableName`). */
  readonly table: string;
  readonly options: ScoreOptions;
  readonly cache: ScoringCache;
  readonly unitDays: number;
  readonly fitRow: ModelFitRow | null;
}

/**
 * Step 3 of {@link recomputeAccount}: scores the staged summaries and swaps them in
 * (`scoredLines` into `replaceAccountScores`; `hasRows` false: no rows, the swap only). The
 * intervals are checked as they are written (each distinct history's once): when one is not finite,
 * the partition is rolled back and written again with the scorer's fallback, at most twice
 * (customer-only draws, then no intervals). Returns the scorer the rows were written with.
 */
export async function writeAccountScores(
  io: { readonly reader: PoolClient; readonly writer: PoolClient; readonly logger: Logger },
  write: ScoresWrite,
  intervals: IntervalScorer | null,
  hasRows: boolean,
): Promise<IntervalScorer | null> {
  const { accountId, fit, stage } = write.scores;
  for (;;) {
    const lines = hasRows
      ? scoredLines(io.reader, stage, accountId, fit, write.options, write.cache, write.unitDays, intervals)
      : null;
    try {
      await replaceAccountScores(io.writer, write.scores, write.table, lines, write.fitRow);
      return intervals;
    } catch (err) {
      if (!(err instanceof IntervalsNotFinite) || !intervals) throw err;
      io.logger.warn('intervals_not_finite', {
        accountId,
        parameterDraws: intervals.parameterDraws,
      });
      intervals = intervals.fallback();
    }
  }
}

/**
 * The model-choice step: with as many repeat customers in the calibration period as training needs,
 * both models are fitted on it and scored on the weeks held out (`checkOnHoldout`); the account is then
 * scored with the chosen model refitted on everything. Fewer: no check (BG/NBD, or the heuristic).
 */
function checkModels(histories: HoldoutHistories, settings: ScoringSettings): HoldoutCheck | null {
  let repeat = 0;
  for (let i = 0; i < histories.x.length; i++) if (histories.x[i]! > 0) repeat += histories.weight[i]!;
  if (repeat < (settings.minRepeatCustomers ?? DEFAULT_MIN_REPEAT_CUSTOMERS)) return null;
  return checkOnHoldout(histories);
}

/** The account's (x, t_x, T) groups as the intervals' information matrix reads them. */
function tripletGroups(rfm: RfmGroups) {
  return { x: rfm.frequency, tx: rfm.recency, T: rfm.T, weight: rfm.weight, customers: rfm.customers };
}

/** True when every prediction of `fit` on every distinct history of the account is finite. */
function finiteOnGroups(
  rfm: RfmGroups,
  fit: AccountFit,
  options: ScoreOptions,
  cache: ScoringCache,
): boolean {
  // In chunks: the score columns of millions of histories at once would be ten arrays of that length.
  const n = rfm.frequency.length;
  const zeros = new Float64Array(Math.min(n, CHUNK_ROWS));
  for (let from = 0; from < n; from += CHUNK_ROWS) {
    const to = Math.min(n, from + CHUNK_ROWS);
    const frequency = rfm.frequency.subarray(from, to);
    const columns = {
      frequency,
      recency: rfm.recency.subarray(from, to),
      T: rfm.T.subarray(from, to),
      monetaryValue: zeros.subarray(0, to - from),
      totalRevenue: zeros.subarray(0, to - from),
      transactions: frequency.map((x) => x + 1),
    };
    const s = scoreWithFit(columns, fit, options, cache);
    for (let i = 0; i < to - from; i++) {
      if (
        !Number.isFinite(s.pAlive[i]) ||
        !Number.isFinite(s.expectedPurchases[i]) ||
        !Number.isFinite(s.expectedSpend[i]) ||
        !Number.isFinite(s.predictedValue[i])
      )
        return false;
    }
  }
  return true;
}

/**
 * The account's fit, with one guard: when a trained fit lands on extreme parameters (the "optimum at
 * infinity" of docs/analytics.md §2) some predictions can come out NaN. Every distinct history is
 * scored once before any row is written (into the cache the write phase then reuses); if any comes out
 * non-finite the account is scored with the heuristic instead, and fallback_reason
 * `bgnbd_predictions_not_finite` says why (model_fits keeps the rejected fit). The heuristic failing
 * as well is an error.
 */
function guardedFit(
  staged: StagedAccount | null,
  options: ScoreOptions,
): {
  fit: AccountFit;
  rejected: ScoreResult['params'] | null;
  cache: ScoringCache;
  stats: AccountStatistics;
} {
  const stats = staged?.statistics ?? EMPTY_STATISTICS;
  const fit = fitAccount(stats, options);
  const cache = scoringCache();
  if (finiteOnGroups(stats.rfm, fit, options, cache)) return { fit, rejected: null, cache, stats };
  if (fit.model === 'heuristic') throw new RangeError('heuristic scores are not finite');
  const heuristic = fitAccount(stats, { ...options, minRepeatCustomers: Number.POSITIVE_INFINITY });
  const heuristicCache = scoringCache();
  if (!finiteOnGroups(stats.rfm, heuristic, options, heuristicCache))
    throw new RangeError('heuristic scores are not finite');
  return {
    fit: {
      ...heuristic,
      repeatCustomers: fit.repeatCustomers,
      fallbackReason:
        fit.model === 'bgnbd-gg' ? 'bgnbd_predictions_not_finite' : 'pareto_nbd_predictions_not_finite',
    },
    rejected: fit.params,
    cache: heuristicCache,
    stats,
  };
}

const EMPTY_STATISTICS: AccountStatistics = Object.freeze({
  rfm: {
    frequency: new Float64Array(0),
    recency: new Float64Array(0),
    T: new Float64Array(0),
    weight: new Float64Array(0),
    customers: 0,
  },
  spend: { frequency: new Float64Array(0), monetaryValue: new Float64Array(0), weight: new Float64Array(0) },
});

/**
 * The sync consumer's `recompute` hook: scores the task's account as of the moment the task runs
 * (throwing marks the task failed with the error's message) and reports the snapshot it scored, which
 * the task's counters are taken from.
 *
 * @example
 * await startSyncConsumer(config, { pool, kafka, codec, recompute: scoreTaskAccount({ pool, readModelSchema }) });
 */
export function scoreTaskAccount(
  deps: RecomputeDeps,
  now: () => Date = () => new Date(),
): (task: { readonly accountId: string }) => Promise<RecomputeOutcome['snapshot']> {
  return async (task) => (await recomputeAccount(deps, task.accountId, now())).snapshot;
}
