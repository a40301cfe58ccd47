import { recordOutboundEvents } from '@holdfast/webhook-deliveries';
import { sql, type Database, type Pool } from '@holdfast/postgres';
import type { Kysely } from 'kysely';
import { decideBilling } from '@holdfast/analytics';
import { liftProven, TREATED_ARM_STATUSES } from '@holdfast/domain';
import { storeZoneOf } from '@holdfast/local-time';
import { recomputeDb } from '../recompute-database.js';
import { liftFigures, settlingPeriods, type Period } from './lift-report.js';

export interface LiftReportInput {
  readonly accountId: string;
  readonly readModelSchema: string;
  readonly now: Date;
  /**
   * Periods to (re)compute; default: every month not yet settled (`settlingPeriods`), calendar months
   * in the account's store_timezone (UTC when it has none).
   */
  readonly periods?: readonly Period[];
  /** Days after a period's end during which refunds still change its billable figure (default 60). */
  readonly settlementDays?: number;
}

/**
 * Ledger statuses of the treated arm under intent to treat: every eligible non-holdout customer
 * selected, whether the send then succeeded, failed, is still planned, or was simulated (sandbox).
 */

/**
 * Computes analytics.lift_reports of one account for each campaign type with assignments in each
 * period, and upserts them (one row per account, type and period).
 *
 * Who counts (intent to treat): every customer selected for the type in the period. Treated: not in
 * the holdout, whatever happened to the send (sent, failed, still planned, simulated); holdout: the
 * customers who would have been selected, held out (same audience rules, consent, cool-down and cap;
 * see `planAudiences`). Counting only successful sends would drop the treated customers a provider
 * could not reach, who are not a random subset, while the holdout keeps their twins: biased toward
 * billing. A customer assigned more than once in the period counts once, from the first assignment.
 * Outcome: the customer's net revenue (order amount − refunds; cancelled orders 0) from that assignment
 * until the period end (or now, for the current period). All orders count, attributed or not.
 *
 * Settlement: a row is `provisional` (and recomputed on every run, so late refunds lower it) until the
 * first run at or after period end + `settlementDays`, which computes it once more with the refunds
 * known then, stores it as `final` with `final_billable_revenue`, and never changes it again.
 */
/** The account's zone for its monthly reports: `storeZoneOf` its store_timezone. */
async function storeZone(pool: Pool, r: LiftReportInput): Promise<string> {
  const row = await recomputeDb(pool)
    .withSchema(r.readModelSchema)
    .selectFrom('account_settings')
    .select('store_timezone')
    .where('account_id', '=', r.accountId)
    .executeTakeFirst()
    .catch(() => undefined); // account_settings is created by its own projection, maybe not yet
  return storeZoneOf(row?.store_timezone);
}

export async function computeLiftReports(pool: Pool, r: LiftReportInput): Promise<number> {
  const db = recomputeDb(pool);
  let written = 0;
  const periods = r.periods ?? settlingPeriods(r.now, r.settlementDays, await storeZone(pool, r));
  for (const p of periods) {
    const frozen = await db
      .selectFrom('analytics.lift_reports')
      .select(sql<number>`1`.as('one'))
      .where('account_id', '=', r.accountId)
      .where('period_start', '=', p.start)
      .where('period_end', '=', p.end)
      .where('settlement_status', '=', 'final')
      .limit(1)
      .executeTakeFirst();
    if (frozen) continue; // settled: billed figures never move again
    const until = new Date(Math.min(p.end.getTime(), r.now.getTime()));
    const rows = await db
      .withSchema(r.readModelSchema)
      .with('firsts', (w) =>
        w
          .selectFrom('analytics.campaign_assignments')
          .select(['campaign_type', 'customer_id', 'arm'])
          .select((eb) => eb.fn.min('assigned_at').as('assigned_at'))
          .where('account_id', '=', r.accountId)
          .where('assigned_at', '>=', p.start)
          .where('assigned_at', '<', p.end)
          .where((eb) =>
            eb.or([
              eb.and([eb('arm', '=', 'treated'), eb('status', 'in', TREATED_ARM_STATUSES)]),
              eb.and([eb('arm', '=', 'holdout'), eb('status', '=', 'held_out')]),
            ]),
          )
          .groupBy(['campaign_type', 'customer_id', 'arm']),
      )
      .selectFrom('firsts as f')
      .select(['f.campaign_type', 'f.arm'])
      .select((eb) =>
        eb
          .cast<number>(
            eb.fn.coalesce(
              eb
                .selectFrom('orders as o')
                .select((o) => o.fn.sum<number>('o.net_amount_reporting').as('s'))
                .where('o.account_id', '=', r.accountId)
                .whereRef('o.customer_id', '=', 'f.customer_id')
                .whereRef('o.order_date', '>=', 'f.assigned_at')
                .where('o.order_date', '<', until),
              eb.lit(0),
            ),
            'float8',
          )
          .as('revenue'),
      )
      .orderBy('f.campaign_type')
      .orderBy('f.arm')
      .orderBy('f.customer_id')
      .execute();
    const byType = new Map<string, { treated: number[]; holdout: number[] }>();
    for (const row of rows) {
      let g = byType.get(row.campaign_type);
      if (!g) byType.set(row.campaign_type, (g = { treated: [], holdout: [] }));
      g[row.arm].push(row.revenue);
    }
    for (const [campaignType, g] of byType) {
      const f = liftFigures(g.treated, g.holdout);
      const bill = decideBilling({ ...f, periodEnd: p.end, now: r.now, settlementDays: r.settlementDays });
      const final = bill.settlementStatus === 'final';
      // The report and its lift.proven (once it is billable) in one transaction.
      await db.transaction().execute(async (trx) => {
        const report = await trx
          .insertInto('analytics.lift_reports')
          .values({
            account_id: r.accountId,
            campaign_type: campaignType,
            period_start: p.start,
            period_end: p.end,
            treated_customers: f.treatedCustomers,
            holdout_customers: f.holdoutCustomers,
            treated_revenue_per_customer: f.treatedRevenuePerCustomer,
            holdout_revenue_per_customer: f.holdoutRevenuePerCustomer,
            lift: f.lift,
            ci_low: f.ciLow,
            ci_high: f.ciHigh,
            p_value: f.pValue,
            significant: f.significant,
            incremental_revenue: f.incrementalRevenue,
            billable_revenue: bill.billableRevenue,
            mde: f.mde,
            computed_at: r.now,
            test: f.test,
            p_value_greater: f.pValueGreater,
            settlement_status: bill.settlementStatus,
            settles_at: bill.settlesAt,
            settled_at: final ? r.now : null,
            final_billable_revenue: bill.finalBillableRevenue,
          })
          .onConflict((oc) =>
            oc
              .columns(['account_id', 'campaign_type', 'period_start', 'period_end'])
              .doUpdateSet((eb) => ({
                treated_customers: eb.ref('excluded.treated_customers'),
                holdout_customers: eb.ref('excluded.holdout_customers'),
                treated_revenue_per_customer: eb.ref('excluded.treated_revenue_per_customer'),
                holdout_revenue_per_customer: eb.ref('excluded.holdout_revenue_per_customer'),
                lift: eb.ref('excluded.lift'),
                ci_low: eb.ref('excluded.ci_low'),
                ci_high: eb.ref('excluded.ci_high'),
                p_value: eb.ref('excluded.p_value'),
                significant: eb.ref('excluded.significant'),
                incremental_revenue: eb.ref('excluded.incremental_revenue'),
                billable_revenue: eb.ref('excluded.billable_revenue'),
                mde: eb.ref('excluded.mde'),
                computed_at: eb.ref('excluded.computed_at'),
                test: eb.ref('excluded.test'),
                p_value_greater: eb.ref('excluded.p_value_greater'),
                settlement_status: eb.ref('excluded.settlement_status'),
                settles_at: eb.ref('excluded.settles_at'),
                settled_at: eb.ref('excluded.settled_at'),
                final_billable_revenue: eb.ref('excluded.final_billable_revenue'),
              }))
              .where('analytics.lift_reports.settlement_status', '=', 'provisional'),
          )
          .executeTakeFirst();
        const proven =
          report.numInsertedOrUpdatedRows &&
          liftProven({
            campaignType,
            periodStart: p.start,
            periodEnd: p.end,
            lift: f.lift,
            ciLow: f.ciLow,
            ciHigh: f.ciHigh,
            pValue: f.pValue,
            incrementalRevenue: f.incrementalRevenue,
            billableRevenue: bill.billableRevenue,
            settlementStatus: bill.settlementStatus,
          });
        if (proven)
          await recordOutboundEvents(trx as unknown as Kysely<Database>, [
            { accountId: r.accountId, occurredAt: r.now, ...proven },
          ]);
      });
      written++;
    }
  }
  return written;
}
