import {
  churnRisk,
  type IntervalColumns,
  LIFECYCLE_STATES,
  type ScoreColumnsResult,
  type ScoreResult,
  type SummaryColumns,
} from '@holdfast/analytics';

/**
 * The per-customer columns of analytics.customer_scores, in the order {@link scoreLines} writes them.
 * The columns every row of a recompute shares (account_id, model, model_params, horizon_days, as_of)
 * are filled by column defaults of the table being built: PostgreSQL then parses model_params once,
 * not once per row (parsing a million jsonb values took longer than everything else in the write).
 */
export const PER_CUSTOMER_COLUMNS = [
  'customer_id',
  'external_id',
  'churn_risk',
  'lifecycle_state',
  'p_alive',
  'predicted_next_purchase_at',
  'expected_purchases',
  'expected_spend',
  'realised_revenue',
  'predicted_value',
  'lifetime_value',
  'is_holdout',
  'expected_purchases_low',
  'expected_purchases_high',
  'lifetime_value_low',
  'lifetime_value_high',
] as const;

/** The models' time unit (of t_x, T, α and the gap in model_params): weeks, as the CDNOW validation. */
export const TIME_UNIT = 'weeks';

/** Everything the rows of one recompute are made of: row i of every column is customer `customerIds[i]`. */
export interface ScoreBatch {
  readonly accountId: string;
  readonly asOf: Date;
  readonly horizonDays: number;
  readonly result: ScoreColumnsResult;
  /** The summaries `result` was scored from, in the same order (realised revenue comes from them). */
  readonly summaries: Pick<SummaryColumns, 'totalRevenue'>;
  readonly customerIds: readonly string[];
  /** Each row's external id, already in COPY text escaping. */
  readonly externalIds: readonly (string | undefined)[];
  /** Customer ids in the universal holdout (`isHoldout` of @holdfast/analytics). */
  readonly holdout: ReadonlySet<string>;
  /** 90% intervals of expected purchases and lifetime value (`scoreIntervals`); null: none (heuristic). */
  readonly intervals?: IntervalColumns | null;
}

/**
 * The parameters stored on every row (model_params): enough to recompute any prediction. The fit's
 * diagnostics (log-likelihood, iterations, convergence) are in analytics.model_fits, once per recompute.
 */
export function modelParams(result: Pick<ScoreResult, 'params'>): Record<string, unknown> {
  const p = result.params;
  if ('paretoNbd' in p) {
    return {
      time_unit: TIME_UNIT,
      pareto_nbd: p.paretoNbd.params,
      gamma_gamma: p.gammaGamma ? p.gammaGamma.params : null,
    };
  }
  if ('bgnbd' in p) {
    return {
      time_unit: TIME_UNIT,
      bgnbd: p.bgnbd.params,
      gamma_gamma: p.gammaGamma ? p.gammaGamma.params : null,
    };
  }
  return { time_unit: TIME_UNIT, account_median_gap: p.accountMedianGap };
}

function finite(v: number): number {
  if (!Number.isFinite(v)) throw new RangeError(`non-finite score value ${v}`);
  return v;
}

// Money is stored with 4 decimals, as the orders are; probabilities and counts keep full precision.
const money = (v: number): string => String(Math.round(finite(v) * 10_000) / 10_000);
const float = (v: number): string => String(finite(v));

/**
 * The rows of analytics.customer_scores ({@link PER_CUSTOMER_COLUMNS}) in COPY text format,
 * `chunkRows` lines per string, so that a million rows stream into COPY as they are made.
 */
export function* scoreLines(batch: ScoreBatch, chunkRows = 5000): Generator<string> {
  const { externalIds, customerIds, holdout } = batch;
  const iv = batch.intervals ?? null;
  const NULLS = '\\N\t\\N\t\\N\t\\N';
  const scores = batch.result.scores;
  const revenue = batch.summaries.totalRevenue;
  const rowCount = customerIds.length;
  if (revenue.length !== rowCount || scores.pAlive.length !== rowCount || externalIds.length !== rowCount)
    throw new Error('scores and summaries differ in length');
  let chunk = '';
  let rows = 0;
  for (let i = 0; i < rowCount; i++) {
    const customerId = customerIds[i]!;
    const pAlive = scores.pAlive[i]!;
    const next = scores.predictedNextPurchaseMs[i]!;
    chunk +=
      `${customerId}\t${externalIds[i] ?? '\\N'}\t${float(churnRisk(pAlive))}\t${LIFECYCLE_STATES[scores.state[i]!]}\t` +
      `${float(pAlive)}\t${Number.isNaN(next) ? '\\N' : new Date(next).toISOString()}\t` +
      `${float(scores.expectedPurchases[i]!)}\t${money(scores.expectedSpend[i]!)}\t${money(revenue[i]!)}\t` +
      `${money(scores.predictedValue[i]!)}\t${money(scores.lifetimeValue[i]!)}\t${holdout.has(customerId) ? 't' : 'f'}\t` +
      `${iv ? `${float(iv.purchasesLow[i]!)}\t${float(iv.purchasesHigh[i]!)}\t${money(iv.lifetimeValueLow[i]!)}\t${money(iv.lifetimeValueHigh[i]!)}` : NULLS}\n`;
    if (++rows === chunkRows) {
      yield chunk;
      chunk = '';
      rows = 0;
    }
  }
  if (chunk !== '') yield chunk;
}
