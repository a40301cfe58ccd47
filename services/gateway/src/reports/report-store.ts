import { rawQuery, type Pool } from '@holdfast/db';
import { MONEY_EDGES } from '@holdfast/dashboards';
import type pg from 'pg';
import { orNothingYet } from '../read-side-db.js';
import type { LiftRecord } from '../read-api/read-store.js';

/** How many recomputes the lifecycle mix shows, and how many fits the model report. */
export const LIFECYCLE_POINTS = 60;
export const MODEL_FITS = 30;
/** How many monthly cohorts the retention heat map shows (the latest). */
export const COHORTS = 24;

/**
 * The aggregate reads of GET /v1/reports/{name} (docs/read-api.md, "Reports"). Each statement filters
 * on the key's account id first and returns counts, sums and bins, never a customer's row: a million
 * customers come back as at most a few hundred numbers. Before the recompute or the projector has
 * created a table, a read answers "nothing yet" (empty).
 */
export class ReportStore {
  private readonly rm: string;

  constructor(
    private readonly pool: Pool,
    readModelSchema: string,
  ) {
    this.rm = `"${readModelSchema.replace(/"/g, '""')}"`;
  }

  private rows<R extends object>(name: string, text: string, params: readonly unknown[]): Promise<R[]> {
    return orNothingYet(
      async () => (await rawQuery<R & pg.QueryResultRow>(this.pool, name, text, params)).rows,
      [],
    );
  }

  /** Customers per lifecycle state at each of the latest recomputes (analytics.lifecycle_mix). */
  lifecycleMix(accountId: string) {
    return this.rows<{ as_of: Date; lifecycle_state: string; customers: number }>(
      'reports.lifecycle-mix',
      `select as_of, lifecycle_state, customers
         from analytics.lifecycle_mix
        where account_id = $1
          and as_of in (select distinct as_of from analytics.lifecycle_mix where account_id = $1
                         order by as_of desc limit ${LIFECYCLE_POINTS})`,
      [accountId],
    );
  }

  /** The latest scores' churn risk per width_bucket(churn_risk, 0, 1, 20), with the sum and as_of. */
  churnRisk(accountId: string) {
    return this.rows<{ bucket: number; customers: number; total: number; as_of: Date }>(
      'reports.churn-risk',
      `select width_bucket(churn_risk, 0, 1, 20) as bucket, count(*)::int as customers,
              sum(churn_risk) as total, max(as_of) as as_of
         from analytics.customer_scores
        where account_id = $1
        group by 1`,
      [accountId],
    );
  }

  /**
   * Realised revenue and lifetime value per customer in MONEY_EDGES buckets, in one scan (grouping
   * sets): `measure` says which, with each bucket's customers and sum.
   */
  valueDistribution(accountId: string) {
    return this.rows<{
      measure: 'revenue' | 'ltv';
      bucket: number;
      customers: number;
      total: number;
      as_of: Date;
    }>(
      'reports.value-distribution',
      `select case when grouping(rb) = 0 then 'revenue' else 'ltv' end as measure,
              coalesce(rb, lb) as bucket, count(*)::int as customers,
              case when grouping(rb) = 0 then sum(realised_revenue) else sum(lifetime_value) end::float8 as total,
              max(as_of) as as_of
         from (select width_bucket(realised_revenue, $2::numeric[]) as rb,
                      width_bucket(lifetime_value, $2::numeric[]) as lb,
                      realised_revenue, lifetime_value, as_of
                 from analytics.customer_scores where account_id = $1) s
        group by grouping sets ((rb), (lb))`,
      [accountId, MONEY_EDGES],
    );
  }

  /**
   * Active customers per monthly cohort and month since the first order (UTC months as year × 12 +
   * month − 1), of the latest COHORTS cohorts: counted orders only (not cancelled, resolved customer).
   */
  cohortRetention(accountId: string) {
    return this.rows<{ cohort: number; k: number; customers: number }>(
      'reports.cohort-retention',
      `with active as (
         select customer_id,
                (extract(year from order_date at time zone 'UTC') * 12
                  + extract(month from order_date at time zone 'UTC') - 1)::int as m
           from ${this.rm}.orders
          where account_id = $1 and cancelled_at is null and customer_id is not null
          group by 1, 2),
       cohorts as (select m, min(m) over (partition by customer_id) as c from active)
       select c as cohort, m - c as k, count(*)::int as customers
         from cohorts
        where c > (select max(c) from cohorts) - ${COHORTS}
        group by 1, 2`,
      [accountId],
    );
  }

  /** Campaign decisions per type and status (the view analytics.campaign_decision_counts: counts only). */
  campaignDecisions(accountId: string) {
    return this.rows<{ campaign_type: string; status: string; decisions: number }>(
      'reports.campaign-decisions',
      `select campaign_type, status, decisions::int as decisions
         from analytics.campaign_decision_counts where account_id = $1`,
      [accountId],
    );
  }

  /** Attributed orders and net revenue (reporting currency) per campaign type. */
  attributed(accountId: string) {
    return this.rows<{ campaign_type: string; orders: number; revenue: number }>(
      'reports.attributed',
      `select campaign_type, count(*)::int as orders, sum(net_revenue)::float8 as revenue
         from analytics.attributions where account_id = $1 group by 1`,
      [accountId],
    );
  }

  /** The account's lift reports, oldest period first. */
  lift(accountId: string) {
    return this.rows<LiftRecord>(
      'reports.lift',
      `select campaign_type, period_start, period_end, treated_customers, holdout_customers, lift, ci_low,
              ci_high, p_value_greater, significant, mde, incremental_revenue, billable_revenue,
              settlement_status, settles_at, settled_at, final_billable_revenue, computed_at
         from analytics.lift_reports
        where account_id = $1
        order by period_start, campaign_type`,
      [accountId],
    );
  }

  /** The latest fits of the account's model, newest first. */
  modelFits(accountId: string) {
    return this.rows<{
      as_of: Date;
      model: 'bgnbd-gg' | 'heuristic';
      converged: boolean;
      log_likelihood: number | null;
      customers: number;
      repeat_customers: number;
      params: Record<string, unknown> | null;
    }>(
      'reports.model-fits',
      `select as_of, model, converged, log_likelihood, customers, repeat_customers, params
         from analytics.model_fits where account_id = $1
        order by as_of desc limit ${MODEL_FITS}`,
      [accountId],
    );
  }

  /** The account's reporting currency (fx.account_currencies; USD when never set). */
  async reportingCurrency(accountId: string): Promise<string> {
    const rows = await this.rows<{ reporting_currency: string }>(
      'reports.reporting-currency',
      `select reporting_currency from fx.account_currencies where account_id = $1`,
      [accountId],
    );
    return rows[0]?.reporting_currency ?? 'USD';
  }
}
