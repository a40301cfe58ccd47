import type { Pool } from '@holdfast/db';
import { liftFigures, monthPeriods, type Period } from './lift-report.js';

export interface LiftReportInput {
  readonly accountId: string;
  readonly readModelSchema: string;
  readonly now: Date;
  /** Periods to (re)compute; default: the current and the previous calendar month (UTC). */
  readonly periods?: readonly Period[];
}

/**
 * Computes analytics.lift_reports of one account for each campaign type with assignments in each
 * period, and upserts them (one row per account, type and period).
 *
 * Who counts: every customer assigned to the type in the period — treated customers whose message was
 * sent, holdout customers who would have been sent (same audience rules, same consent and cool-down;
 * see `planAudiences`). A customer assigned more than once in the period counts once, from the first
 * assignment. Outcome: the customer's net revenue (order amount − refunds; cancelled orders 0) from
 * that assignment until the period end (or now, for the current period). All orders count, attributed
 * or not: the holdout comparison measures what the campaign added, whatever the path to purchase.
 */
export async function computeLiftReports(pool: Pool, r: LiftReportInput): Promise<number> {
  const rm = `"${r.readModelSchema}"`;
  let written = 0;
  for (const p of r.periods ?? monthPeriods(r.now)) {
    const until = new Date(Math.min(p.end.getTime(), r.now.getTime()));
    const { rows } = await pool.query<{ campaign_type: string; arm: 'treated' | 'holdout'; revenue: number }>(
      `with firsts as (
         select campaign_type, customer_id, arm, min(assigned_at) as assigned_at
           from analytics.campaign_assignments
          where account_id = $1 and assigned_at >= $2 and assigned_at < $3 and status in ('sent', 'held_out')
          group by campaign_type, customer_id, arm)
       select f.campaign_type, f.arm,
              coalesce((select sum(o.net_amount) from ${rm}.orders o
                         where o.account_id = $1 and o.customer_id = f.customer_id
                           and o.order_date >= f.assigned_at and o.order_date < $4), 0)::float8 as revenue
         from firsts f
        order by f.campaign_type, f.arm, f.customer_id`,
      [r.accountId, p.start, p.end, until],
    );
    const byType = new Map<string, { treated: number[]; holdout: number[] }>();
    for (const row of rows) {
      let g = byType.get(row.campaign_type);
      if (!g) byType.set(row.campaign_type, (g = { treated: [], holdout: [] }));
      g[row.arm].push(row.revenue);
    }
    for (const [campaignType, g] of byType) {
      const f = liftFigures(g.treated, g.holdout);
      await pool.query(
        `insert into analytics.lift_reports
           (account_id, campaign_type, period_start, period_end, treated_customers, holdout_customers,
            treated_revenue_per_customer, holdout_revenue_per_customer, lift, ci_low, ci_high, p_value,
            significant, incremental_revenue, billable_revenue, mde, computed_at)
         values ($1, $2, $3, $4, $5, $6, $7, $8, $9, $10, $11, $12, $13, $14, $15, $16, $17)
         on conflict (account_id, campaign_type, period_start, period_end) do update set
           treated_customers = excluded.treated_customers, holdout_customers = excluded.holdout_customers,
           treated_revenue_per_customer = excluded.treated_revenue_per_customer,
           holdout_revenue_per_customer = excluded.holdout_revenue_per_customer,
           lift = excluded.lift, ci_low = excluded.ci_low, ci_high = excluded.ci_high,
           p_value = excluded.p_value, significant = excluded.significant,
           incremental_revenue = excluded.incremental_revenue, billable_revenue = excluded.billable_revenue,
           mde = excluded.mde, computed_at = excluded.computed_at`,
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
        ],
      );
      written++;
    }
  }
  return written;
}
