import { inTransaction, rawQuery, type Pool } from '@holdfast/db';

const DAY_MS = 86_400_000;

/**
 * Refreshes the account's monthly cohort activity (analytics.cohort_activity) from its orders: for each
 * cohort (the UTC month of a customer's first counted order, as year × 12 + month − 1) and each month
 * since, how many of its customers ordered. Counted orders are those the scores count: not cancelled,
 * with a resolved customer, on or before the as-of UTC day (stream-account.ts). One transaction: a reader sees the previous table or the new one. Returns
 * the rows written.
 *
 * Why here and not at read time: at a million customers (2.4 M orders) the aggregation takes seconds
 * (docs/performance.md, "Dashboards"), too slow for a page, but small beside a recompute.
 */
export async function refreshCohortActivity(
  pool: Pool,
  readModelSchema: string,
  accountId: string,
  asOf: Date,
): Promise<number> {
  const rm = `"${readModelSchema.replace(/"/g, '""')}"`;
  const client = await pool.connect();
  try {
    return await inTransaction(client, async () => {
      await rawQuery(
        client,
        'cohort-activity.delete',
        `delete from analytics.cohort_activity where account_id = $1`,
        [accountId],
      );
      const r = await rawQuery(
        client,
        'cohort-activity.insert',
        `insert into analytics.cohort_activity (account_id, cohort, months_since, customers, computed_at)
         with active as (
           select customer_id,
                  (extract(year from order_date at time zone 'UTC') * 12
                    + extract(month from order_date at time zone 'UTC') - 1)::int as m
             from ${rm}.orders
            where account_id = $1 and cancelled_at is null and customer_id is not null
              and order_date < $3
            group by 1, 2),
         cohorts as (select m, min(m) over (partition by customer_id) as c from active)
         select $1, c, m - c, count(*)::int, $2 from cohorts group by c, m - c`,
        [accountId, asOf, new Date((Math.floor(asOf.getTime() / DAY_MS) + 1) * DAY_MS)],
      );
      return r.rowCount ?? 0;
    });
  } finally {
    client.release();
  }
}
