import { inTransaction, rawQuery, type Pool } from '@holdfast/postgres';

/**
 * Recounts the account's campaign funnel for the dashboards: its decisions per type and status
 * (analytics.campaign_decision_counts) and its attributed orders and net revenue per type
 * (analytics.campaign_attributed_totals), from the ledger and the attributions, in one transaction: a
 * reader sees the previous counts or the new ones. Run at the end of every campaign step, after the
 * attributions are recomputed.
 *
 * Why counted here: an account of a million customers holds millions of decisions; counting them per
 * page view took seconds (docs/performance.md, "Dashboards").
 */
export async function refreshFunnelCounts(pool: Pool, accountId: string, at: Date): Promise<void> {
  const client = await pool.connect();
  try {
    await inTransaction(client, async () => {
      await rawQuery(
        client,
        'funnel-counts.delete-decisions',
        `delete from analytics.campaign_decision_counts where account_id = $1`,
        [accountId],
      );
      await rawQuery(
        client,
        'funnel-counts.count-decisions',
        `insert into analytics.campaign_decision_counts (account_id, campaign_type, status, decisions, counted_at)
         select $1, campaign_type, status, count(*)::int, $2
           from analytics.campaign_assignments where account_id = $1 group by 2, 3`,
        [accountId, at],
      );
      await rawQuery(
        client,
        'funnel-counts.delete-attributed',
        `delete from analytics.campaign_attributed_totals where account_id = $1`,
        [accountId],
      );
      await rawQuery(
        client,
        'funnel-counts.count-attributed',
        `insert into analytics.campaign_attributed_totals (account_id, campaign_type, orders, net_revenue, counted_at)
         select $1, campaign_type, count(*)::int, sum(net_revenue), $2
           from analytics.attributions where account_id = $1 group by 2`,
        [accountId, at],
      );
    });
  } finally {
    client.release();
  }
}
