import { isHoldout, type CustomerSummary, type ScoreResult } from '@holdfast/analytics';

/** The columns of analytics.customer_scores, in the order {@link scoreLines} writes them. */
export const SCORE_COLUMNS = [
  'account_id',
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
  'model',
  'model_params',
  'horizon_days',
  'as_of',
] as const;

/** What every row of one recompute shares. */
export interface ScoreBatch {
  readonly accountId: string;
  readonly asOf: Date;
  readonly horizonDays: number;
  readonly result: ScoreResult;
  /** The summaries `result` was scored from, in the same order (realised revenue comes from them). */
  readonly summaries: readonly CustomerSummary[];
  /** External ids by customer id, already in COPY text escaping. */
  readonly externalIds: ReadonlyMap<string, string>;
}

/**
 * The compact parameters stored on every row (model_params): enough to recompute any prediction. The
 * fit's diagnostics (log-likelihood, iterations, convergence) are in analytics.model_fits once per
 * recompute, not a million times.
 */
export function modelParams(result: ScoreResult): Record<string, unknown> {
  const p = result.params;
  if ('bgnbd' in p) {
    return {
      time_unit: 'weeks',
      bgnbd: p.bgnbd.params,
      gamma_gamma: p.gammaGamma ? p.gammaGamma.params : null,
    };
  }
  return { time_unit: 'weeks', account_median_gap: p.accountMedianGap };
}

// Money is stored with 4 decimals (as the orders are); probabilities keep full precision.
const money = (v: number): string => finite(v).toFixed(4);
const float = (v: number): string => String(finite(v));

function finite(v: number): number {
  if (!Number.isFinite(v)) throw new RangeError(`non-finite score value ${v}`);
  return v;
}

/** COPY text-format escaping of a string that may hold tabs, newlines or backslashes. */
export function copyEscape(text: string): string {
  return /[\\\t\n\r]/.test(text)
    ? text.replace(/[\\\t\n\r]/g, (c) => (c === '\\' ? '\\\\' : c === '\t' ? '\\t' : c === '\n' ? '\\n' : '\\r'))
    : text;
}

/**
 * The rows of analytics.customer_scores in COPY text format, `chunkRows` lines per string, so that
 * a million rows are produced as they are written rather than held as one giant string.
 */
export function* scoreLines(batch: ScoreBatch, chunkRows = 5000): Generator<string> {
  const { accountId, asOf, horizonDays, result, externalIds, summaries } = batch;
  if (summaries.length !== result.scores.length) throw new Error('scores and summaries differ in length');
  const shared = {
    model: result.model,
    params: copyEscape(JSON.stringify(modelParams(result))),
    horizon: String(horizonDays),
    asOf: asOf.toISOString(),
  };
  let lines: string[] = [];
  for (let i = 0; i < summaries.length; i++) {
    const s = result.scores[i]!;
    const summary = summaries[i]!;
    if (summary.customerId !== s.customerId) throw new Error('scores and summaries are not aligned');
    const next = s.predictedNextPurchaseAt;
    lines.push(
      [
        accountId,
        s.customerId,
        externalIds.get(s.customerId) ?? '\\N',
        float(s.churnRisk),
        s.state,
        float(s.pAlive),
        next === null ? '\\N' : next.toISOString(),
        float(s.expectedPurchases),
        money(s.expectedSpend),
        money(summary.totalRevenue),
        money(s.predictedValue),
        money(s.lifetimeValue),
        isHoldout(accountId, s.customerId) ? 't' : 'f',
        shared.model,
        shared.params,
        shared.horizon,
        shared.asOf,
      ].join('\t'),
    );
    if (lines.length >= chunkRows) {
      yield `${lines.join('\n')}\n`;
      lines = [];
    }
  }
  if (lines.length > 0) yield `${lines.join('\n')}\n`;
}
