import { inTransaction, rawQuery, type Pool } from '@holdfast/postgres';
import { localDayOf, startOfLocalDay, storeZoneOf } from '@holdfast/local-time';

/** The clock the cohort months are read on and the end of the counted orders. */
export interface CohortClock {
  /** The account's store zone (UTC when it has none or an unusable one: `storeZoneOf`). */
  readonly zone: string;
  /** Orders before this instant count: local midnight after the as-of day, in `zone`. */
  readonly countedBefore: Date;
}

/**
 * The cohorts' clock: months are calendar months of the store's zone, as the monthly lift reports'
 * (a store in New York sees an order at 23:00 on 31 October as October's), and the counted orders end
 * with the as-of day there. An account without a zone keeps UTC, as before.
 *
 * @example
 * cohortClock(new Date('2026-12-01T03:00:00Z'), 'America/New_York');
 * // { zone: 'America/New_York', countedBefore: 2026-12-01T05:00:00Z }: still 30 November there
 */
export function cohortClock(asOf: Date, storeTimezone: string | null | undefined): CohortClock {
  const zone = storeZoneOf(storeTimezone);
  return { zone, countedBefore: new Date(startOfLocalDay(localDayOf(asOf, zone) + 1, zone)) };
}

/**
 * Refreshes the account's monthly cohort activity (analytics.cohort_activity) from its orders: for each
 * cohort (the store-zone month of a customer's first counted order, as year × 12 + month − 1: see
 * {@link cohortClock}) and each month since, how many of its customers ordered. Counted orders are not
 * cancelled, have a resolved customer and fall on or before the as-of day in the store's zone. (The
 * scores place a customer whose ZIP gives a zone on that zone's clock; a cohort table is the store's
 * calendar, one clock for every customer.) One transaction: a reader sees the previous table or the
 * new one. Returns the rows written.
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
      // account_settings is created by its own projection, maybe not yet.
      const exists = await rawQuery<{ ok: boolean }>(
        client,
        'cohort-activity.settings-exist',
        `select to_regclass($1) is not null as ok`,
        [`${rm}.account_settings`],
      );
      const settings = exists.rows[0]?.ok
        ? await rawQuery<{ zone: string | null }>(
            client,
            'cohort-activity.store-zone',
            `select store_timezone as zone from ${rm}.account_settings where account_id = $1`,
            [accountId],
          )
        : null;
      const clock = cohortClock(asOf, settings?.rows[0]?.zone);
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
                  (extract(year from order_date at time zone $4::text) * 12
                    + extract(month from order_date at time zone $4::text) - 1)::int as m
             from ${rm}.orders
            where account_id = $1 and cancelled_at is null and customer_id is not null
              and order_date < $3
            group by 1, 2),
         cohorts as (select m, min(m) over (partition by customer_id) as c from active)
         select $1, c, m - c, count(*)::int, $2 from cohorts group by c, m - c`,
        [accountId, asOf, clock.countedBefore, clock.zone],
      );
      return r.rowCount ?? 0;
    });
  } finally {
    client.release();
  }
}
