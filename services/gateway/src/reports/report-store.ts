import { rawQuery, type Pool } from '@holdfast/postgres';
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

  /**
   * The latest scores counted per bin (analytics.score_bins, written by the recompute with its swap):
   * churn risk, realised revenue and lifetime value, each bin with its customers and sum.
   */
  scoreBins(accountId: string) {
    return this.rows<{
      measure: 'churn_risk' | 'realised_revenue' | 'lifetime_value';
      bucket: number;
      customers: number;
      total: number;
      as_of: Date;
    }>(
      'reports.score-bins',
      `select measure, bucket, customers, total, as_of from analytics.score_bins where account_id = $1`,
      [accountId],
    );
  }

  /**
   * Active customers per monthly cohort and month since the first order (analytics.cohort_activity,
   * refreshed by every recompute), of the latest COHORTS cohorts.
   */
  cohortRetention(accountId: string) {
    return this.rows<{ cohort: number; k: number; customers: number }>(
      'reports.cohort-retention',
      `select cohort, months_since as k, customers
         from analytics.cohort_activity
        where account_id = $1
          and cohort > (select max(cohort) from analytics.cohort_activity where account_id = $1) - ${COHORTS}`,
      [accountId],
    );
  }

  /**
   * Campaign decisions per type and status (analytics.campaign_decision_counts, recounted by the
   * recompute after each campaign step: counts only, never the ledger's rows).
   */
  campaignDecisions(accountId: string) {
    return this.rows<{ campaign_type: string; status: string; decisions: number }>(
      'reports.campaign-decisions',
      `select campaign_type, status, decisions
         from analytics.campaign_decision_counts where account_id = $1`,
      [accountId],
    );
  }

  /** Attributed orders and net revenue (reporting currency) per campaign type (recounted with the decisions). */
  attributed(accountId: string) {
    return this.rows<{ campaign_type: string; orders: number; revenue: number }>(
      'reports.attributed',
      `select campaign_type, orders, net_revenue::float8 as revenue
         from analytics.campaign_attributed_totals where account_id = $1`,
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
