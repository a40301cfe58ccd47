import { barChart, dataTable, escapeXml, heatMap, lineChart, renderFigure } from '@holdfast/charts';
import { dayOf, formatCount, formatMoney, formatMoneyTick, formatShare, monthName } from './format.js';
import {
  LIFECYCLE_STATES,
  type Bin,
  type CampaignFunnelReport,
  type ChurnRiskReport,
  type CohortRetentionReport,
  type LifecycleMixReport,
  type LiftDashboardReport,
  type ModelFitReport,
  type MoneyDistribution,
  type ReportByName,
  type ReportName,
  type ValueDistributionReport,
} from './reports.js';

/** Each report's heading on its page. */
export const DASHBOARD_TITLES: Readonly<Record<ReportName, string>> = {
  'lifecycle-mix': 'Lifecycle mix over time',
  'churn-risk': 'Churn risk',
  'cohort-retention': 'Monthly cohort retention',
  'value-distribution': 'Revenue and lifetime value per customer',
  'campaign-funnel': 'Campaign funnel',
  lift: 'Lift and billing',
  'model-fit': 'Model fit',
};

/** Lifecycle colours: healthy to gone (Okabe–Ito green, sky blue, orange, vermilion). */
const STATE_COLORS = {
  Stable: '#009E73',
  Slowing: '#56B4E9',
  Overdue: '#E69F00',
  Lapsed: '#D55E00',
} as const;

/**
 * One dashboard as an HTML fragment (a <section> with its heading, plots and tables) the console embeds
 * as is: pure, so the same data gives the same bytes. `data` is the body of GET /v1/reports/{name}.
 * Every label is escaped; ids are prefixed `hf-<name>-` (unique on a page with one dashboard of each).
 *
 * @example
 * const data = await (await fetch(`${api}/v1/reports/churn-risk`, { headers })).json();
 * page.body += renderDashboard('churn-risk', data);
 */
export function renderDashboard<N extends ReportName>(name: N, data: ReportByName[N]): string {
  const body = RENDERERS[name](data as never);
  const h = `hf-${name}-heading`;
  return `<section class="hf-dashboard" aria-labelledby="${h}"><h2 id="${h}">${escapeXml(DASHBOARD_TITLES[name])}</h2>${body}</section>`;
}

const RENDERERS: { [N in ReportName]: (data: ReportByName[N]) => string } = {
  'lifecycle-mix': lifecycleMix,
  'churn-risk': churnRisk,
  'cohort-retention': cohortRetention,
  'value-distribution': valueDistribution,
  'campaign-funnel': campaignFunnel,
  lift,
  'model-fit': modelFit,
};

const p = (text: string) => `<p>${escapeXml(text)}</p>`;
const NOT_SCORED = p(
  'No scores yet: the account has not been recomputed (a sync, or the nightly run, does it).',
);

function lifecycleMix(d: LifecycleMixReport): string {
  if (d.points.length === 0) return NOT_SCORED;
  const latest = d.points[d.points.length - 1]!;
  const mix = LIFECYCLE_STATES.map(
    (s) =>
      `${s} ${formatCount(latest.customers[s])} (${formatShare(latest.total ? latest.customers[s] / latest.total : 0)})`,
  ).join(', ');
  const chart = lineChart({
    id: 'hf-lifecycle-mix-chart',
    title: 'Customers per lifecycle state, per recompute',
    description: `Stacked areas of the scored customers in each lifecycle state at each of ${d.points.length} recomputes. Latest (${dayOf(latest.as_of)}): ${mix}.`,
    categories: d.points.map((pt) => dayOf(pt.as_of)),
    series: LIFECYCLE_STATES.map((s) => ({
      name: s,
      values: d.points.map((pt) => pt.customers[s]),
      color: STATE_COLORS[s],
    })),
    stacked: true,
    xLabel: 'Recompute',
    yLabel: 'Customers',
    format: formatCount,
  });
  return p(`Latest recompute, ${dayOf(latest.as_of)}: ${mix}.`) + renderFigure(chart);
}

const riskLabel = (b: Bin) => `${b.low.toFixed(2)}–${(b.high ?? 1).toFixed(2)}`;

function churnRisk(d: ChurnRiskReport): string {
  if (d.customers === 0) return NOT_SCORED;
  const high = d.bins.filter((b) => b.low >= 0.5).reduce((n, b) => n + b.customers, 0);
  const chart = barChart({
    id: 'hf-churn-risk-chart',
    title: 'Customers by churn risk',
    description: `Histogram of churn risk (1 − P(alive)) over ${formatCount(d.customers)} scored customers, in bins of 0.05. ${formatCount(high)} customers (${formatShare(high / d.customers)}) have a churn risk of 0.5 or more.`,
    categories: d.bins.map(riskLabel),
    series: [{ name: 'Customers', values: d.bins.map((b) => b.customers), color: '#0072B2' }],
    xLabel: 'Churn risk',
    yLabel: 'Customers',
    format: formatCount,
  });
  const mean = d.mean === null ? '' : ` Mean churn risk ${d.mean.toFixed(3)}.`;
  return (
    p(
      `${formatCount(d.customers)} customers scored ${d.scored_at ? `on ${dayOf(d.scored_at)}` : ''}.${mean}`,
    ) + renderFigure(chart)
  );
}

function cohortRetention(d: CohortRetentionReport): string {
  if (d.cohorts.length === 0) return p('No orders yet.');
  const months = Math.max(...d.cohorts.map((c) => c.active.length));
  const columns = Array.from({ length: months }, (_, k) => String(k));
  const chart = heatMap({
    id: 'hf-cohort-retention-chart',
    title: 'Share of each monthly cohort ordering again, by month since the first order',
    description: `Heat map of ${d.cohorts.length} cohorts (month of the first order, UTC) by months since it. Each cell is the share of the cohort's customers who ordered in that month; month 0 is 100%.`,
    rows: d.cohorts.map((c) => c.cohort),
    columns,
    values: d.cohorts.map((c) =>
      columns.map((_, k) => (k < c.active.length ? (c.customers ? c.active[k]! / c.customers : 0) : null)),
    ),
    rowLabel: 'Cohort',
    columnLabel: 'Month',
    max: 1,
    format: formatShare,
  });
  const sizes = dataTable(
    'Cohort sizes',
    ['Cohort', 'Customers'],
    d.cohorts.map((c) => [c.cohort, formatCount(c.customers)]),
  );
  return (
    renderFigure(chart) + `<details class="hf-cohort-sizes"><summary>Cohort sizes</summary>${sizes}</details>`
  );
}

function moneyChart(id: string, what: string, dist: MoneyDistribution, currency: string): string {
  const label = (b: Bin) =>
    b.high === null
      ? `${formatMoney(b.low, currency)}+`
      : `${formatMoney(b.low, currency)}–${formatMoney(b.high, currency)}`;
  const mean = dist.customers ? dist.total / dist.customers : 0;
  return renderFigure(
    barChart({
      id,
      title: `Customers by ${what} (${currency})`,
      description: `Histogram of ${what} per customer over ${formatCount(dist.customers)} customers, in bins growing in 1-2-5 steps. Total ${formatMoney(dist.total, currency)}, mean ${formatMoney(mean, currency)} per customer.`,
      categories: dist.bins.map(label),
      series: [{ name: 'Customers', values: dist.bins.map((b) => b.customers), color: '#0072B2' }],
      xLabel: `${what} (${currency})`,
      yLabel: 'Customers',
      format: formatCount,
    }),
  );
}

function valueDistribution(d: ValueDistributionReport): string {
  if (d.revenue.customers === 0) return NOT_SCORED;
  return (
    p(
      `In ${d.currency}, the account's reporting currency; scores of ${d.scored_at ? dayOf(d.scored_at) : 'the latest recompute'}.`,
    ) +
    moneyChart('hf-value-revenue-chart', 'realised net revenue', d.revenue, d.currency) +
    moneyChart('hf-value-ltv-chart', 'lifetime value', d.lifetime_value, d.currency)
  );
}

function campaignFunnel(d: CampaignFunnelReport): string {
  if (d.types.length === 0)
    return p('No campaign decisions yet: no campaign type is enabled, or none has run.');
  const types = d.types.map((t) => t.campaign_type);
  const funnel = barChart({
    id: 'hf-campaign-funnel-chart',
    title: 'Campaign funnel per type',
    description: d.types
      .map(
        (t) =>
          `${t.campaign_type}: ${formatCount(t.decided)} decided, ${formatCount(t.sent)} sent, ${formatCount(t.attributed_orders)} attributed orders`,
      )
      .join('; '),
    categories: types,
    series: [
      { name: 'Decided', values: d.types.map((t) => t.decided) },
      { name: 'Sent', values: d.types.map((t) => t.sent) },
      { name: 'Attributed orders', values: d.types.map((t) => t.attributed_orders) },
    ],
    xLabel: 'Campaign type',
    yLabel: 'Count',
    format: formatCount,
  });
  const revenue = barChart({
    id: 'hf-campaign-revenue-chart',
    title: `Attributed net revenue per type (${d.currency})`,
    description: d.types
      .map((t) => `${t.campaign_type}: ${formatMoney(t.attributed_revenue, d.currency)}`)
      .join('; '),
    categories: types,
    series: [
      { name: 'Attributed revenue', values: d.types.map((t) => t.attributed_revenue), color: '#009E73' },
    ],
    xLabel: 'Campaign type',
    yLabel: d.currency,
    format: (v) => formatMoney(v, d.currency),
    tickFormat: (v) => formatMoneyTick(v, d.currency),
  });
  const details = dataTable(
    'Decisions per type',
    [
      'Campaign type',
      'Decided',
      'Held out',
      'Not sent (disabled, consent, suppressed, capped)',
      'Treated',
      'Sent',
      'Failed',
      'Attributed orders',
      'Attributed revenue',
    ],
    d.types.map((t) => [
      t.campaign_type,
      formatCount(t.decided),
      formatCount(t.held_out),
      formatCount(t.not_sent),
      formatCount(t.treated),
      formatCount(t.sent),
      formatCount(t.failed),
      formatCount(t.attributed_orders),
      formatMoney(t.attributed_revenue, d.currency),
    ]),
  );
  return (
    renderFigure(funnel) +
    renderFigure(revenue) +
    p(
      'Attribution counts the orders our messages touched; what is billed is the lift against the holdout (Lift and billing).',
    ) +
    details
  );
}

function lift(d: LiftDashboardReport): string {
  if (d.months.length === 0) return p('No lift reports yet: they start with the first campaign decisions.');
  const months = [...new Set(d.months.map((m) => m.period_start))].sort();
  const types = [...new Set(d.months.map((m) => m.campaign_type))].sort();
  const at = (type: string, month: string) =>
    d.months.find((m) => m.campaign_type === type && m.period_start === month);
  const money = (v: number) => formatMoney(v, d.currency);
  const liftChart = lineChart({
    id: 'hf-lift-chart',
    title: `Lift per customer, per type and month, with 95% intervals (${d.currency})`,
    description: `Treated minus holdout revenue per customer for ${types.join(', ')} over ${months.length} months; whiskers are the 95% intervals. A month is billed only when its interval is above zero.`,
    categories: months.map((m) => monthName(m, true)),
    series: types.map((t) => ({
      name: t,
      values: months.map((m) => at(t, m)?.lift ?? null),
      intervals: months.map((m) => {
        const iv = at(t, m)?.interval;
        return iv && iv.low !== null && iv.high !== null ? { low: iv.low, high: iv.high } : null;
      }),
    })),
    references: [{ value: 0, label: 'no lift' }],
    xLabel: 'Month',
    yLabel: `Lift per customer (${d.currency})`,
    format: money,
  });
  const billChart = barChart({
    id: 'hf-billable-chart',
    title: `Billable revenue per month and type (${d.currency})`,
    description: `Billable revenue (final once settled, else provisional) per month: ${months
      .map(
        (m) =>
          `${monthName(m, true)} ${money(d.months.filter((r) => r.period_start === m).reduce((s, r) => s + (r.billed ? billedOf(r) : 0), 0))}`,
      )
      .join(', ')}.`,
    categories: months.map((m) => monthName(m, true)),
    series: types.map((t) => ({
      name: t,
      values: months.map((m) => {
        const r = at(t, m);
        return r && r.billed ? billedOf(r) : 0;
      }),
    })),
    xLabel: 'Month',
    yLabel: d.currency,
    format: money,
    tickFormat: (v) => formatMoneyTick(v, d.currency),
  });
  const rows = [...d.months].sort(
    (a, b) => b.period_start.localeCompare(a.period_start) || a.campaign_type.localeCompare(b.campaign_type),
  );
  const table = dataTable(
    'Lift, minimum detectable effect and billing per type and month',
    [
      'Month',
      'Type',
      'Treated',
      'Held out',
      'Lift per customer',
      '95% interval',
      'MDE per customer',
      'Billable',
      'Status',
      'Why',
    ],
    rows.map((r) => [
      monthName(r.period_start, true),
      r.campaign_type,
      formatCount(r.treated_customers),
      formatCount(r.holdout_customers),
      r.lift === null ? '–' : money(r.lift),
      r.interval && r.interval.low !== null && r.interval.high !== null
        ? `${money(r.interval.low)} to ${money(r.interval.high)}`
        : '–',
      r.mde === null ? '–' : money(r.mde),
      money(r.billed ? billedOf(r) : 0),
      r.settlement_status,
      r.why,
    ]),
  );
  return renderFigure(liftChart) + renderFigure(billChart) + table;
}

const billedOf = (r: {
  settlement_status: string;
  final_billable_revenue: number | null;
  billable_revenue: number;
}) => (r.settlement_status === 'final' ? (r.final_billable_revenue ?? 0) : r.billable_revenue);

function modelFit(d: ModelFitReport): string {
  if (d.fits.length === 0) return p('No model fit yet: the account has not been recomputed.');
  const fits = [...d.fits].reverse();
  const latest = d.fits[0]!;
  const summary =
    `Latest fit ${dayOf(latest.as_of)}: ${latest.model === 'bgnbd-gg' ? 'BG/NBD with Gamma-Gamma' : 'the heuristic'}` +
    `${latest.converged ? '' : ' (the fit did not converge)'}` +
    `${latest.fallback_reason ? `, because ${latest.fallback_reason.replace(/_/g, ' ')}` : ''}; ` +
    `${formatCount(latest.customers)} customers, ${formatCount(latest.repeat_customers)} repeat customers.`;
  const population = lineChart({
    id: 'hf-model-population-chart',
    title: 'Customers and repeat customers per fit',
    description: `Customers scored and repeat customers (two or more purchase days) at each of ${fits.length} fits. The trained model needs 100 repeat customers.`,
    categories: fits.map((f) => dayOf(f.as_of)),
    series: [
      { name: 'Customers', values: fits.map((f) => f.customers) },
      { name: 'Repeat customers', values: fits.map((f) => f.repeat_customers) },
    ],
    references: [{ value: 100, label: 'trained model from 100 repeaters' }],
    xLabel: 'Fit',
    yLabel: 'Customers',
    format: formatCount,
  });
  const ll = lineChart({
    id: 'hf-model-ll-chart',
    title: 'BG/NBD log-likelihood per customer, per fit',
    description:
      'The fitted log-likelihood divided by the customers at each fit (higher fits better; a sudden drop says the data changed). Heuristic fits have none.',
    categories: fits.map((f) => dayOf(f.as_of)),
    series: [
      {
        name: 'Log-likelihood per customer',
        values: fits.map((f) =>
          f.log_likelihood === null || f.customers === 0 ? null : f.log_likelihood / f.customers,
        ),
      },
    ],
    xLabel: 'Fit',
    yLabel: 'Log-likelihood per customer',
    format: (v) => v.toFixed(3),
  });
  const num = (v: number | undefined) => (v === undefined ? '–' : Number(v.toPrecision(4)).toString());
  const table = dataTable(
    'Fits, newest first',
    [
      'Fit',
      'Model',
      'Converged',
      'Log-likelihood',
      'Customers',
      'Repeat customers',
      'r',
      'α',
      'a',
      'b',
      'p',
      'q',
      'γ',
      'Fallback',
    ],
    d.fits.map((f) => [
      dayOf(f.as_of),
      f.model,
      f.converged ? 'yes' : 'no',
      f.log_likelihood === null ? '–' : f.log_likelihood.toFixed(1),
      formatCount(f.customers),
      formatCount(f.repeat_customers),
      num(f.bgnbd?.r),
      num(f.bgnbd?.alpha),
      num(f.bgnbd?.a),
      num(f.bgnbd?.b),
      num(f.gamma_gamma?.p),
      num(f.gamma_gamma?.q),
      num(f.gamma_gamma?.gamma),
      f.fallback_reason ?? '–',
    ]),
  );
  return p(summary) + renderFigure(population) + renderFigure(ll) + table;
}
