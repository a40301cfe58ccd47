// The reports of GET /v1/reports/{name} (docs/read-api.md, "Reports"): one account's aggregates, never
// its rows. These types are the JSON the gateway answers (its OpenAPI schemas describe the same
// shapes) and what renderDashboard draws.

/** Every report, in the order a console lists them. */
export const REPORT_NAMES = [
  'lifecycle-mix',
  'churn-risk',
  'cohort-retention',
  'value-distribution',
  'campaign-funnel',
  'lift',
  'model-fit',
] as const;
export type ReportName = (typeof REPORT_NAMES)[number];

export const isReportName = (v: string): v is ReportName => (REPORT_NAMES as readonly string[]).includes(v);

/** The lifecycle states, from the healthiest (docs/analytics.md, "Lifecycle state"). */
export const LIFECYCLE_STATES = ['Stable', 'Slowing', 'Overdue', 'Lapsed'] as const;
export type LifecycleState = (typeof LIFECYCLE_STATES)[number];

/** How many customers were in each lifecycle state after one recompute. */
export interface LifecyclePoint {
  readonly as_of: string;
  readonly customers: Readonly<Record<LifecycleState, number>>;
  readonly total: number;
}

/** Lifecycle mix over time: one point per recompute, oldest first (the latest 60). */
export interface LifecycleMixReport {
  readonly report: 'lifecycle-mix';
  readonly points: readonly LifecyclePoint[];
}

/** A histogram bin [low, high) (the last bin of churn risk includes 1; high null: no upper bound). */
export interface Bin {
  readonly low: number;
  readonly high: number | null;
  readonly customers: number;
}

/** Churn risk (1 − P(alive)) of the latest scores, in 20 bins of 0.05. */
export interface ChurnRiskReport {
  readonly report: 'churn-risk';
  readonly scored_at: string | null;
  readonly customers: number;
  readonly mean: number | null;
  readonly bins: readonly Bin[];
}

/** One monthly cohort: customers whose first counted order fell in `cohort` (YYYY-MM, UTC). */
export interface Cohort {
  readonly cohort: string;
  readonly customers: number;
  /** active[k]: customers of the cohort who ordered in month k after the first (active[0] = customers). */
  readonly active: readonly number[];
}

/** Monthly cohort retention (the latest 24 cohorts), for a heat map of active[k] / customers. */
export interface CohortRetentionReport {
  readonly report: 'cohort-retention';
  readonly cohorts: readonly Cohort[];
}

/** A distribution of money per customer: customers, their sum, and 1-2-5 bins. */
export interface MoneyDistribution {
  readonly customers: number;
  readonly total: number;
  readonly bins: readonly Bin[];
}

/** Realised net revenue and lifetime value per customer, in the reporting currency, of the latest scores. */
export interface ValueDistributionReport {
  readonly report: 'value-distribution';
  readonly currency: string;
  readonly scored_at: string | null;
  readonly revenue: MoneyDistribution;
  readonly lifetime_value: MoneyDistribution;
}

/** The campaign decisions of one type, and what came of them (all time). */
export interface FunnelRow {
  readonly campaign_type: string;
  /** Every decision: treated, held out, or not sent (disabled, no consent, suppressed, capped). */
  readonly decided: number;
  readonly held_out: number;
  readonly not_sent: number;
  /** Selected and not held out: planned, sending, sent, possibly sent, failed, sandbox-simulated. */
  readonly treated: number;
  /** Sent or possibly sent (counted as sent, docs/campaigns.md "At most once"). */
  readonly sent: number;
  readonly failed: number;
  readonly attributed_orders: number;
  readonly attributed_revenue: number;
}

export interface CampaignFunnelReport {
  readonly report: 'campaign-funnel';
  readonly currency: string;
  readonly types: readonly FunnelRow[];
}

/** A lift report row as the dashboard shows it: the figures, whether it is billed, and why. */
export interface LiftMonth {
  readonly campaign_type: string;
  readonly period_start: string;
  readonly period_end: string;
  readonly treated_customers: number;
  readonly holdout_customers: number;
  readonly lift: number | null;
  readonly interval: { readonly low: number | null; readonly high: number | null } | null;
  readonly p_value: number | null;
  readonly mde: number | null;
  readonly incremental_revenue: number | null;
  readonly billable_revenue: number;
  readonly settlement_status: 'provisional' | 'final';
  readonly settles_at: string | null;
  readonly settled_at: string | null;
  readonly final_billable_revenue: number | null;
  /** Whether anything is billed for the month (the final figure once settled). */
  readonly billed: boolean;
  /** Why the month is or is not billed, in one plain sentence (`whyBilled`). */
  readonly why: string;
}

/** Lift per type and month, oldest first, in the reporting currency. */
export interface LiftDashboardReport {
  readonly report: 'lift';
  readonly currency: string;
  readonly months: readonly LiftMonth[];
}

/** One fit of the account's model (analytics.model_fits). */
export interface ModelFit {
  readonly as_of: string;
  readonly model: 'bgnbd-gg' | 'heuristic';
  readonly converged: boolean;
  readonly log_likelihood: number | null;
  readonly customers: number;
  readonly repeat_customers: number;
  readonly fallback_reason: string | null;
  readonly bgnbd: {
    readonly r: number;
    readonly alpha: number;
    readonly a: number;
    readonly b: number;
  } | null;
  readonly gamma_gamma: { readonly p: number; readonly q: number; readonly gamma: number } | null;
}

/** The model's fit diagnostics: the latest 30 fits, newest first. */
export interface ModelFitReport {
  readonly report: 'model-fit';
  readonly fits: readonly ModelFit[];
}

/** A report by its name. */
export interface ReportByName {
  'lifecycle-mix': LifecycleMixReport;
  'churn-risk': ChurnRiskReport;
  'cohort-retention': CohortRetentionReport;
  'value-distribution': ValueDistributionReport;
  'campaign-funnel': CampaignFunnelReport;
  lift: LiftDashboardReport;
  'model-fit': ModelFitReport;
}
export type Report = ReportByName[ReportName];
