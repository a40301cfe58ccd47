import { daysPerUnit, scoreCustomers, type CustomerSummary, type ScoreResult } from '@holdfast/analytics';
import type { Pool } from '@holdfast/db';
import { silentLogger, type Logger } from '@holdfast/platform';
import { loadAccountOrders, loadExternalIds } from './load-account-orders.js';
import { modelParams } from './score-rows.js';
import { modelFitRow, replaceAccountScores } from './write-scores.js';

/** How scores are computed; the defaults are documented in docs/analytics.md. */
export interface ScoringSettings {
  /** Horizon of expected_purchases and predicted_value, in days (default 365). */
  readonly horizonDays: number;
  /** Annual discount rate of predicted_value (default 0.10). */
  readonly discountRate: number;
  /** Repeat customers needed for BG/NBD + Gamma-Gamma (default 100, the package's threshold). */
  readonly minRepeatCustomers?: number;
}

export const DEFAULT_SCORING: ScoringSettings = Object.freeze({ horizonDays: 365, discountRate: 0.1 });

/** The models' time unit: weeks, the unit the CDNOW validation uses. */
const TIME_UNIT = 'weeks';

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
  readonly ms: { readonly load: number; readonly score: number; readonly write: number };
}

/**
 * Recomputes one account's customer scores as of `asOf`: reads its orders and customers from the read
 * models in one snapshot, summarises per customer (calibration end = the as-of UTC day), scores with
 * `scoreCustomers` (BG/NBD + Gamma-Gamma with ≥ 100 repeat customers, else the heuristic) and replaces
 * the account's rows of analytics.customer_scores atomically.
 *
 * @example
 * const outcome = await recomputeAccount({ pool, readModelSchema: 'read_models' }, accountId, new Date());
 * outcome.model; // 'bgnbd-gg' | 'heuristic' | null (no orders)
 */
export async function recomputeAccount(
  deps: RecomputeDeps,
  accountId: string,
  asOf: Date,
): Promise<RecomputeOutcome> {
  const settings = deps.settings ?? DEFAULT_SCORING;
  const logger = deps.logger ?? silentLogger;
  const t0 = performance.now();
  const { summaries, orders, externalIds } = await readAccount(deps, accountId, asOf);
  const t1 = performance.now();
  const result = scoreCustomers(summaries, {
    asOf,
    horizon: settings.horizonDays / daysPerUnit(TIME_UNIT),
    discountRate: settings.discountRate,
    timeUnit: TIME_UNIT,
    minRepeatCustomers: settings.minRepeatCustomers,
  });
  const t2 = performance.now();
  const fitSettings = {
    ...modelParams(result),
    horizon_days: settings.horizonDays,
    discount_rate: settings.discountRate,
  };
  const fit = summaries.length > 0 ? modelFitRow(result, fitSettings) : null;
  const client = await deps.pool.connect();
  try {
    await replaceAccountScores(
      client,
      { accountId, asOf, horizonDays: settings.horizonDays, result, summaries, externalIds },
      fit,
    );
  } finally {
    client.release();
  }
  const t3 = performance.now();
  const outcome: RecomputeOutcome = {
    accountId,
    asOf,
    orders,
    customers: summaries.length,
    repeatCustomers: result.repeatCustomers,
    model: summaries.length > 0 ? result.model : null,
    fallbackReason: result.fallbackReason,
    ms: { load: Math.round(t1 - t0), score: Math.round(t2 - t1), write: Math.round(t3 - t2) },
  };
  logger.info('scores_recomputed', { ...outcome, asOf: asOf.toISOString() });
  return outcome;
}

/** Orders and external ids from one snapshot, so both describe the same moment. */
async function readAccount(
  deps: RecomputeDeps,
  accountId: string,
  asOf: Date,
): Promise<{ summaries: CustomerSummary[]; orders: number; externalIds: Map<string, string> }> {
  const client = await deps.pool.connect();
  try {
    await client.query('begin isolation level repeatable read read only');
    // A plain scan: JIT compilation costs about a second here and saves less.
    await client.query('set local jit = off');
    const { summaries, orders } = await loadAccountOrders(
      client,
      deps.readModelSchema,
      accountId,
      asOf,
      daysPerUnit(TIME_UNIT),
    );
    const externalIds = summaries.length > 0 ? await loadExternalIds(client, deps.readModelSchema, accountId) : new Map<string, string>();
    await client.query('commit');
    return { summaries, orders, externalIds };
  } catch (err) {
    await client.query('rollback').catch(() => {});
    throw err;
  } finally {
    client.release();
  }
}
