import {
  checkOnHoldout,
  daysPerUnit,
  DEFAULT_MIN_REPEAT_CUSTOMERS,
  scoreIntervals,
  scoreSummaryColumns,
  type HoldoutCheck,
  type HoldoutHistories,
  type PurchaseModel,
  type ScoreColumnsResult,
  type ScoreResult,
  type SummaryColumns,
} from '@holdfast/analytics';
import type { Pool } from '@holdfast/db';
import { silentLogger, type Logger } from '@holdfast/platform';
import { readAccount } from './load-account-orders.js';
import { holdoutColumns, modelFitRow } from './model-fit.js';
import { TIME_UNIT } from './score-rows.js';
import { replaceAccountScores } from './write-scores.js';

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
  readonly ms: { readonly load: number; readonly score: number; readonly write: number };
}

/**
 * Recomputes one account's customer scores as of `asOf`: reads its orders and customers from the read
 * models in one snapshot, summarises per customer (calibration end = the as-of UTC day), chooses the
 * purchase model on a holdout (`checkOnHoldout`: BG/NBD or Pareto/NBD), scores with
 * `scoreSummaryColumns` (scoreCustomers over typed arrays: the chosen model + Gamma-Gamma with ≥ 100
 * repeat customers, else the heuristic), adds 90% intervals (`scoreIntervals`) and replaces the
 * account's rows of analytics.customer_scores atomically, with the fit and the check in model_fits.
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
  const t0 = performance.now();
  const { summaries, customerIds, orders, externalIds, holdout, snapshot, modelCheck } = await readAccount(
    deps.pool,
    deps.readModelSchema,
    accountId,
    asOf,
    daysPerUnit(TIME_UNIT),
    settings.modelCheck ?? true,
  );
  const t1 = performance.now();
  const check = modelCheck ? checkModels(modelCheck, settings) : null;
  const { result, rejected } = score(summaries, asOf, settings, check?.chosen ?? 'bgnbd');
  const intervals =
    settings.intervals === false
      ? null
      : scoreIntervals(result, summaries, settings.horizonDays / daysPerUnit(TIME_UNIT), { seed: 1 });
  const t2 = performance.now();
  const fitSettings = {
    time_unit: TIME_UNIT,
    horizon_days: settings.horizonDays,
    discount_rate: settings.discountRate,
  };
  const customers = customerIds.length;
  const fit =
    customers > 0
      ? modelFitRow(result, customers, fitSettings, rejected, check ? holdoutColumns(check) : null)
      : null;
  await replaceAccountScores(
    deps.pool,
    {
      accountId,
      asOf,
      horizonDays: settings.horizonDays,
      result,
      summaries,
      customerIds,
      externalIds,
      holdout,
      intervals,
    },
    fit,
  );
  const t3 = performance.now();
  const outcome: RecomputeOutcome = {
    accountId,
    asOf,
    orders,
    customers,
    repeatCustomers: result.repeatCustomers,
    model: customers > 0 ? result.model : null,
    fallbackReason: result.fallbackReason,
    holdoutChoice: check ? { model: check.chosen, reason: check.reason } : null,
    snapshot,
    ms: { load: Math.round(t1 - t0), score: Math.round(t2 - t1), write: Math.round(t3 - t2) },
  };
  logger.info('scores_recomputed', { ...outcome, asOf: asOf.toISOString() });
  return outcome;
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

/** A score that could not be stored (NaN or infinite). */
function notFinite(r: ScoreColumnsResult): boolean {
  const s = r.scores;
  for (let i = 0; i < s.pAlive.length; i++) {
    if (
      !Number.isFinite(s.pAlive[i]) ||
      !Number.isFinite(s.expectedPurchases[i]) ||
      !Number.isFinite(s.expectedSpend[i]) ||
      !Number.isFinite(s.predictedValue[i]) ||
      !Number.isFinite(s.lifetimeValue[i])
    )
      return true;
  }
  return false;
}

/**
 * scoreCustomers, with one guard: when a trained fit lands on extreme parameters (the "optimum at
 * infinity" of docs/analytics.md §2) some predictions can come out NaN. Rather than leave the account
 * without scores, it is scored with the heuristic, and fallback_reason `bgnbd_predictions_not_finite`
 * says why (model_fits keeps the rejected fit). The heuristic failing as well is an error.
 */
function score(
  summaries: SummaryColumns,
  asOf: Date,
  settings: ScoringSettings,
  purchaseModel: PurchaseModel,
): { result: ScoreColumnsResult; rejected: ScoreResult['params'] | null } {
  const options = {
    asOf,
    horizon: settings.horizonDays / daysPerUnit(TIME_UNIT),
    discountRate: settings.discountRate,
    timeUnit: TIME_UNIT,
    minRepeatCustomers: settings.minRepeatCustomers,
    purchaseModel,
  } as const;
  const result = scoreSummaryColumns(summaries, options);
  if (!notFinite(result)) return { result, rejected: null };
  if (result.model === 'heuristic') throw new RangeError('heuristic scores are not finite');
  const heuristic = scoreSummaryColumns(summaries, {
    ...options,
    minRepeatCustomers: Number.POSITIVE_INFINITY,
  });
  if (notFinite(heuristic)) throw new RangeError('heuristic scores are not finite');
  return {
    result: {
      ...heuristic,
      repeatCustomers: result.repeatCustomers,
      fallbackReason:
        result.model === 'bgnbd-gg' ? 'bgnbd_predictions_not_finite' : 'pareto_nbd_predictions_not_finite',
    },
    rejected: result.params,
  };
}

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
