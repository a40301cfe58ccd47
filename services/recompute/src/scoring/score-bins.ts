import { CHURN_BINS, MONEY_EDGES } from '@holdfast/dashboards';
import { inTransaction, rawQuery, type Pool, type PoolClient } from '@holdfast/postgres';
import { recomputeDbOn } from '../recompute-database.js';

/** The scores counted in bins for the dashboards (analytics.score_bins). */
export type ScoreMeasure = 'churn_risk' | 'realised_revenue' | 'lifetime_value';

/** One bin of one measure: its customers and the sum of their values. */
export interface ScoreBinRow {
  readonly measure: ScoreMeasure;
  readonly bucket: number;
  readonly customers: number;
  readonly total: number;
}

/**
 * Counts the scores of `from` (a table, or a table and a where clause: the account's rows of
 * customer_scores) in the dashboards'
 * bins, in one scan: churn risk in width_bucket(·, 0, 1, CHURN_BINS), realised revenue and lifetime
 * value in width_bucket(·, MONEY_EDGES) (@holdfast/dashboards reads them back with the same edges).
 */
export async function countScoreBins(
  client: PoolClient | Pool,
  from: string,
  params: readonly unknown[] = [],
): Promise<ScoreBinRow[]> {
  const edges = `$${params.length + 1}::numeric[]`;
  const { rows } = await rawQuery<ScoreBinRow>(
    client,
    'score-bins.count',
    `select x.measure, x.bucket, count(*)::int as customers, sum(x.v) as total
       from (select churn_risk, realised_revenue, lifetime_value from ${from}) s
       cross join lateral (values
         ('churn_risk', width_bucket(churn_risk, 0, 1, ${CHURN_BINS}), churn_risk),
         ('realised_revenue', width_bucket(realised_revenue, ${edges}), realised_revenue::float8),
         ('lifetime_value', width_bucket(lifetime_value, ${edges}), lifetime_value::float8)
       ) as x(measure, bucket, v)
      group by 1, 2`,
    [...params, MONEY_EDGES],
  );
  return rows;
}

/** Replaces the account's bins with `rows` of the recompute at `asOf` (inside the caller's transaction). */
export async function writeScoreBins(
  client: PoolClient,
  accountId: string,
  asOf: Date,
  rows: readonly ScoreBinRow[],
): Promise<void> {
  const db = recomputeDbOn(client);
  await db.deleteFrom('analytics.score_bins').where('account_id', '=', accountId).execute();
  if (rows.length === 0) return;
  await db
    .insertInto('analytics.score_bins')
    .values(rows.map((r) => ({ account_id: accountId, as_of: asOf, ...r })))
    .execute();
}

/**
 * Recounts the account's bins from its current scores (an account scored before the bins existed, or
 * scores written by hand); a recompute writes them with its swap instead.
 */
export async function refreshScoreBins(pool: Pool, accountId: string): Promise<void> {
  const client = await pool.connect();
  try {
    await inTransaction(client, async () => {
      const rows = await countScoreBins(client, 'analytics.customer_scores where account_id = $1', [
        accountId,
      ]);
      const { rows: asOf } = await rawQuery<{ as_of: Date | null }>(
        client,
        'score-bins.as-of',
        `select max(as_of) as as_of from analytics.customer_scores where account_id = $1`,
        [accountId],
      );
      await writeScoreBins(client, accountId, asOf[0]?.as_of ?? new Date(0), rows);
    });
  } finally {
    client.release();
  }
}
