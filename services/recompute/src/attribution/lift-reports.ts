import type { Pool } from '@holdfast/db';
import { liftFigures, settlement, settlingPeriods, type Period } from './lift-report.js';

export interface LiftReportInput {
  readonly accountId: string;
  readonly readModelSchema: string;
  readonly now: Date;
  /** Periods to (re)compute; default: every month not yet settled (`settlingPeriods`). */
  readonly periods?: readonly Period[];
  /** Days after a period's end during which refunds still change its billable figure (default 60). */
  readonly settlementDays?: number;
}

/**
 * Ledger statuses of the treated arm under intent to treat: every eligible non-holdout customer
 * selected, whether the send then succeeded, failed, is still planned, or was simulated (sandbox).
 */
const TREATED_STATUSES = ['planned', 'sent', 'failed', 'sandbox_simulated'];

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
export async function computeLiftReports(pool: Pool, r: LiftReportInput): Promise<number> {
  const rm = `"${r.readModelSchema}"`;
  let written = 0;
  for (const p of r.periods ?? settlingPeriods(r.now, r.settlementDays)) {
    const settle = settlement(p, r.now, r.settlementDays);
    const { rows: frozen } = await pool.query(
      `select 1 from analytics.lift_reports
        where account_id = $1 and period_start = $2 and period_end = $3 and settlement_status = 'final' limit 1`,
      [r.accountId, p.start, p.end],
    );
    if (frozen.length) continue; // settled: billed figures never move again
    const until = new Date(Math.min(p.end.getTime(), r.now.getTime()));
    const { rows } = await pool.query<{ campaign_type: string; arm: 'treated' | 'holdout'; revenue: number }>(
      `with firsts as (
         select campaign_type, customer_id, arm, min(assigned_at) as assigned_at
           from analytics.campaign_assignments
          where account_id = $1 and assigned_at >= $2 and assigned_at < $3
            and ((arm = 'treated' and status = any($5::text[])) or (arm = 'holdout' and status = 'held_out'))
          group by campaign_type, customer_id, arm)
       select f.campaign_type, f.arm,
              coalesce((select sum(o.net_amount_reporting) from ${rm}.orders o
                         where o.account_id = $1 and o.customer_id = f.customer_id
                           and o.order_date >= f.assigned_at and o.order_date < $4), 0)::float8 as revenue
         from firsts f
        order by f.campaign_type, f.arm, f.customer_id`,
      [r.accountId, p.start, p.end, until, TREATED_STATUSES],
    );
    const byType = new Map<string, { treated: number[]; holdout: number[] }>();
    for (const row of rows) {
      let g = byType.get(row.campaign_type);
      if (!g) byType.set(row.campaign_type, (g = { treated: [], holdout: [] }));
      g[row.arm].push(row.revenue);
    }
    const final = settle.status === 'final';
    for (const [campaignType, g] of byType) {
      const f = liftFigures(g.treated, g.holdout);
      await pool.query(
        `insert into analytics.lift_reports
           (account_id, campaign_type, period_start, period_end, treated_customers, holdout_customers,
            treated_revenue_per_customer, holdout_revenue_per_customer, lift, ci_low, ci_high, p_value,
            significant, incremental_revenue, billable_revenue, mde, computed_at, test, p_value_greater,
            settlement_status, settles_at, settled_at, final_billable_revenue)
         values ($1, $2, $3, $4, $5, $6, $7, $8, $9, $10, $11, $12, $13, $14, $15, $16, $17, $18, $19,
                 $20, $21, case when $20 = 'final' then $17::timestamptz end,
                 case when $20 = 'final' then $15::numeric end)
         on conflict (account_id, campaign_type, period_start, period_end) do update set
           treated_customers = excluded.treated_customers, holdout_customers = excluded.holdout_customers,
           treated_revenue_per_customer = excluded.treated_revenue_per_customer,
           holdout_revenue_per_customer = excluded.holdout_revenue_per_customer,
           lift = excluded.lift, ci_low = excluded.ci_low, ci_high = excluded.ci_high,
           p_value = excluded.p_value, significant = excluded.significant,
           incremental_revenue = excluded.incremental_revenue, billable_revenue = excluded.billable_revenue,
           mde = excluded.mde, computed_at = excluded.computed_at, test = excluded.test,
           p_value_greater = excluded.p_value_greater, settlement_status = excluded.settlement_status,
           settles_at = excluded.settles_at, settled_at = excluded.settled_at,
           final_billable_revenue = excluded.final_billable_revenue
         where analytics.lift_reports.settlement_status = 'provisional'`,
        [
          r.accountId,
          campaignType,
          p.start,
          p.end,
          f.treatedCustomers,
          f.holdoutCustomers,
          f.treatedRevenuePerCustomer,
          f.holdoutRevenuePerCustomer,
          f.lift,
          f.ciLow,
          f.ciHigh,
          f.pValue,
          f.significant,
          f.incrementalRevenue,
          f.billableRevenue,
          f.mde,
          r.now,
          f.test,
          f.pValueGreater,
          final ? 'final' : 'provisional',
          settle.settlesAt,
        ],
      );
      written++;
    }
  }
  return written;
}
