import { Readable } from 'node:stream';
import { pipeline } from 'node:stream/promises';
import { from as copyFrom } from 'pg-copy-streams';
import type { ScoreResult } from '@holdfast/analytics';
import type { PoolClient } from '@holdfast/db';
import { SCORE_COLUMNS, scoreLines, type ScoreBatch } from './score-rows.js';

/** The row of analytics.model_fits one recompute writes. */
export interface ModelFitRow {
  readonly model: ScoreResult['model'];
  readonly params: Record<string, unknown>;
  readonly logLikelihood: number | null;
  readonly customers: number;
  readonly repeatCustomers: number;
  readonly converged: boolean;
}

/** The fit diagnostics of a scoring result, as analytics.model_fits keeps them. */
export function modelFitRow(result: ScoreResult, settings: Record<string, unknown>): ModelFitRow {
  const p = result.params;
  const base = { model: result.model, customers: result.scores.length, repeatCustomers: result.repeatCustomers };
  if ('bgnbd' in p) {
    const gg = p.gammaGamma;
    return {
      ...base,
      params: {
        ...settings,
        bgnbd: { ...p.bgnbd.params, log_likelihood: p.bgnbd.logLikelihood, iterations: p.bgnbd.iterations },
        gamma_gamma: gg
          ? { ...gg.params, log_likelihood: gg.logLikelihood, iterations: gg.iterations, customers: gg.customers }
          : null,
      },
      logLikelihood: p.bgnbd.logLikelihood,
      converged: p.bgnbd.converged,
    };
  }
  // The heuristic is not fitted; "converged" says whether it was chosen (false: BG/NBD failed to converge).
  return {
    ...base,
    params: { ...settings, account_median_gap: p.accountMedianGap, fallback_reason: result.fallbackReason },
    logLikelihood: null,
    converged: result.fallbackReason === null,
  };
}

/**
 * Replaces the account's rows of analytics.customer_scores in ONE transaction: delete, COPY the new
 * rows, record the fit. Readers (READ COMMITTED or stricter) see the previous recompute until the
 * commit and the new one after it, never a mix. A per-account advisory lock serialises two recomputes
 * of one account (a sync and the nightly run): the later one simply replaces the earlier one's rows.
 * An account without scorable customers ends with no rows and no fit row.
 */
export async function replaceAccountScores(
  client: PoolClient,
  batch: ScoreBatch,
  fit: ModelFitRow | null,
): Promise<void> {
  await client.query('begin');
  try {
    await client.query(`select pg_advisory_xact_lock(hashtextextended('holdfast:customer_scores:' || $1, 0))`, [
      batch.accountId,
    ]);
    await client.query(`delete from analytics.customer_scores where account_id = $1`, [batch.accountId]);
    if (batch.result.scores.length > 0) {
      await pipeline(
        Readable.from(scoreLines(batch)),
        client.query(copyFrom(`copy analytics.customer_scores (${SCORE_COLUMNS.join(', ')}) from stdin`)),
      );
    }
    if (fit) {
      await client.query(
        `insert into analytics.model_fits
           (account_id, as_of, model, params, log_likelihood, customers, repeat_customers, converged)
         values ($1, $2, $3, $4, $5, $6, $7, $8)
         on conflict (account_id, as_of) do update set model = excluded.model, params = excluded.params,
           log_likelihood = excluded.log_likelihood, customers = excluded.customers,
           repeat_customers = excluded.repeat_customers, converged = excluded.converged`,
        [
          batch.accountId,
          batch.asOf,
          fit.model,
          JSON.stringify(fit.params),
          fit.logLikelihood,
          fit.customers,
          fit.repeatCustomers,
          fit.converged,
        ],
      );
    }
    await client.query('commit');
  } catch (err) {
    await client.query('rollback').catch(() => {});
    throw err;
  }
}
