import {
  churnRisk,
  LIFECYCLE_STATES,
  type IntervalColumns,
  type ScoreColumns,
  type ScoreResult,
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

/** A chunk of one recompute's rows: row i of every column is customer `customerIds[i]`. */
export interface ScoreChunk {
  readonly scores: ScoreColumns;
  /** Each customer's realised net revenue (the summaries' totalRevenue). */
  readonly totalRevenue: ArrayLike<number>;
  readonly customerIds: readonly string[];
  /** Each row's external id, already in COPY text escaping. */
  readonly externalIds: readonly (string | undefined)[];
  /** Whether each row's customer is in the universal holdout (`isHoldout` of @holdfast/analytics). */
  readonly holdout: ArrayLike<boolean>;
  /** 90% intervals of expected purchases and lifetime value, row i for row i; null: none (heuristic). */
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
 * The rows of one chunk of analytics.customer_scores ({@link PER_CUSTOMER_COLUMNS}) in COPY text
 * format, one string: the recompute makes and streams them chunk by chunk.
 */
export function scoreLines(chunk: ScoreChunk): string {
  const { externalIds, customerIds, holdout, scores } = chunk;
  const iv = chunk.intervals ?? null;
  const NULLS = '\\N\t\\N\t\\N\t\\N';
  const revenue = chunk.totalRevenue;
  const rowCount = customerIds.length;
  if (
    revenue.length !== rowCount ||
    scores.pAlive.length !== rowCount ||
    externalIds.length !== rowCount ||
    holdout.length !== rowCount
  )
    throw new Error('scores and summaries differ in length');
  let text = '';
  for (let i = 0; i < rowCount; i++) {
    const pAlive = scores.pAlive[i]!;
    const next = scores.predictedNextPurchaseMs[i]!;
    text +=
      `${customerIds[i]}\t${externalIds[i] ?? '\\N'}\t${float(churnRisk(pAlive))}\t${LIFECYCLE_STATES[scores.state[i]!]}\t` +
      `${float(pAlive)}\t${Number.isNaN(next) ? '\\N' : new Date(next).toISOString()}\t` +
      `${float(scores.expectedPurchases[i]!)}\t${money(scores.expectedSpend[i]!)}\t${money(revenue[i]!)}\t` +
      `${money(scores.predictedValue[i]!)}\t${money(scores.lifetimeValue[i]!)}\t${holdout[i] ? 't' : 'f'}\t` +
      `${iv ? `${float(iv.purchasesLow[i]!)}\t${float(iv.purchasesHigh[i]!)}\t${money(iv.lifetimeValueLow[i]!)}\t${money(iv.lifetimeValueHigh[i]!)}` : NULLS}\n`;
  }
  return text;
}
