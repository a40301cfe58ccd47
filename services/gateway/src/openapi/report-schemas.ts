// JSON Schemas of GET /v1/reports/{name} (docs/read-api.md, "Reports"): the shapes of
// @holdfast/dashboards' reports.ts, referenced from report-paths.ts.
import { LIFECYCLE_STATES, type ReportName } from '@holdfast/dashboards';

const nullable = (schema: Record<string, unknown>) => ({ anyOf: [schema, { type: 'null' }] });
const num = { type: 'number' } as const;
const count = { type: 'integer', minimum: 0 } as const;
const time = { type: 'string', format: 'date-time' } as const;
const currency = { type: 'string', pattern: '^[A-Z]{3}$' } as const;
const object = (properties: Record<string, unknown>, description?: string) => ({
  type: 'object',
  ...(description ? { description } : {}),
  required: Object.keys(properties),
  additionalProperties: false,
  properties,
});
const report = (name: ReportName, properties: Record<string, unknown>, description: string) =>
  object({ report: { const: name }, ...properties }, description);
const bin = object({ low: num, high: nullable(num), customers: count }, 'Customers with low ≤ value < high.');
const distribution = object({ customers: count, total: num, bins: { type: 'array', items: bin } });

const LifecycleMixReport = report(
  'lifecycle-mix',
  {
    points: {
      type: 'array',
      items: object({
        as_of: time,
        customers: object(Object.fromEntries(LIFECYCLE_STATES.map((s) => [s, count]))),
        total: count,
      }),
    },
  },
  'Customers per lifecycle state at each of the latest 60 recomputes, oldest first.',
);

const ChurnRiskReport = report(
  'churn-risk',
  {
    scored_at: nullable(time),
    customers: count,
    mean: nullable(num),
    bins: { type: 'array', minItems: 20, maxItems: 20, items: bin },
  },
  'Churn risk (1 − P(alive)) of the latest scores in 20 bins of 0.05 (the last includes 1).',
);

const CohortRetentionReport = report(
  'cohort-retention',
  {
    cohorts: {
      type: 'array',
      items: object({
        cohort: { type: 'string', pattern: '^[0-9]{4}-[0-9]{2}$' },
        customers: count,
        active: { type: 'array', items: count, minItems: 1 },
      }),
    },
  },
  'The latest 24 monthly cohorts (UTC month of the first counted order), oldest first; active[k] is how many of its customers ordered in month k after it.',
);

const ValueDistributionReport = report(
  'value-distribution',
  { currency, scored_at: nullable(time), revenue: distribution, lifetime_value: distribution },
  "Realised net revenue and lifetime value per customer of the latest scores, in the account's reporting currency, in 1-2-5 bins.",
);

const CampaignFunnelReport = report(
  'campaign-funnel',
  {
    currency,
    types: {
      type: 'array',
      items: object({
        campaign_type: { type: 'string' },
        decided: count,
        held_out: count,
        not_sent: count,
        treated: count,
        sent: count,
        failed: count,
        attributed_orders: count,
        attributed_revenue: num,
      }),
    },
  },
  'Campaign decisions per type (all time), what was sent, and the orders and net revenue attributed.',
);

const LiftDashboardReport = report(
  'lift',
  {
    currency,
    months: {
      type: 'array',
      items: object({
        campaign_type: { type: 'string' },
        period_start: time,
        period_end: time,
        treated_customers: count,
        holdout_customers: count,
        lift: nullable(num),
        interval: nullable(object({ low: nullable(num), high: nullable(num) })),
        p_value: nullable(num),
        mde: nullable(num),
        incremental_revenue: nullable(num),
        billable_revenue: num,
        settlement_status: { enum: ['provisional', 'final'] },
        settles_at: nullable(time),
        settled_at: nullable(time),
        final_billable_revenue: nullable(num),
        billed: { type: 'boolean' },
        why: { type: 'string', minLength: 1 },
      }),
    },
  },
  'Lift per type and month (oldest first) with its 95% interval, the MDE, the billable amount, and why the month is or is not billed.',
);

const ModelFitReport = report(
  'model-fit',
  {
    fits: {
      type: 'array',
      items: object({
        as_of: time,
        model: { enum: ['bgnbd-gg', 'heuristic'] },
        converged: { type: 'boolean' },
        log_likelihood: nullable(num),
        customers: count,
        repeat_customers: count,
        fallback_reason: nullable({ type: 'string' }),
        bgnbd: nullable(object({ r: num, alpha: num, a: num, b: num })),
        gamma_gamma: nullable(object({ p: num, q: num, gamma: num })),
      }),
    },
  },
  "The latest 30 fits of the account's model (analytics.model_fits), newest first.",
);

/** The schema of each report, by name (the answer of GET /v1/reports/{name} is one of them). */
export const REPORT_SCHEMAS = {
  'lifecycle-mix': 'LifecycleMixReport',
  'churn-risk': 'ChurnRiskReport',
  'cohort-retention': 'CohortRetentionReport',
  'value-distribution': 'ValueDistributionReport',
  'campaign-funnel': 'CampaignFunnelReport',
  lift: 'LiftDashboardReport',
  'model-fit': 'ModelFitReport',
} as const satisfies Record<ReportName, string>;

/** The components.schemas of the reports: one per report, and `Report`, any of them. */
export const schemas = {
  LifecycleMixReport,
  ChurnRiskReport,
  CohortRetentionReport,
  ValueDistributionReport,
  CampaignFunnelReport,
  LiftDashboardReport,
  ModelFitReport,
  Report: {
    description: 'One report; `report` says which.',
    oneOf: Object.values(REPORT_SCHEMAS).map((s) => ({ $ref: `#/components/schemas/${s}` })),
  },
};
