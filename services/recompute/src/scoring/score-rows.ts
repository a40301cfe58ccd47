import type { CustomerSummary, ScoreResult } from '@holdfast/analytics';

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
] as const;

/** The models' time unit (of t_x, T, α and the gap in model_params): weeks, as the CDNOW validation. */
export const TIME_UNIT = 'weeks';

/** Everything the rows of one recompute are made of. */
export interface ScoreBatch {
  readonly accountId: string;
  readonly asOf: Date;
  readonly horizonDays: number;
  readonly result: ScoreResult;
  /** The summaries `result` was scored from, in the same order (realised revenue comes from them). */
  readonly summaries: readonly CustomerSummary[];
  /** External ids by customer id, already in COPY text escaping. */
  readonly externalIds: ReadonlyMap<string, string>;
  /** Customer ids in the universal holdout (`isHoldout` of @holdfast/analytics). */
  readonly holdout: ReadonlySet<string>;
}

/**
 * The parameters stored on every row (model_params): enough to recompute any prediction. The fit's
 * diagnostics (log-likelihood, iterations, convergence) are in analytics.model_fits, once per recompute.
 */
export function modelParams(result: ScoreResult): Record<string, unknown> {
  const p = result.params;
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
  const { result, externalIds, summaries, holdout } = batch;
  if (summaries.length !== result.scores.length) throw new Error('scores and summaries differ in length');
  let chunk = '';
  let rows = 0;
  for (let i = 0; i < summaries.length; i++) {
    const s = result.scores[i]!;
    const summary = summaries[i]!;
    if (summary.customerId !== s.customerId) throw new Error('scores and summaries are not aligned');
    const next = s.predictedNextPurchaseAt;
    chunk +=
      `${s.customerId}\t${externalIds.get(s.customerId) ?? '\\N'}\t${float(s.churnRisk)}\t${s.state}\t` +
      `${float(s.pAlive)}\t${next === null ? '\\N' : next.toISOString()}\t${float(s.expectedPurchases)}\t` +
      `${money(s.expectedSpend)}\t${money(summary.totalRevenue)}\t${money(s.predictedValue)}\t` +
      `${money(s.lifetimeValue)}\t${holdout.has(s.customerId) ? 't' : 'f'}\n`;
    if (++rows === chunkRows) {
      yield chunk;
      chunk = '';
      rows = 0;
    }
  }
  if (chunk !== '') yield chunk;
}
