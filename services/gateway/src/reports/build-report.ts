import {
  billedAmount,
  churnBins,
  cohortsFrom,
  funnelRows,
  lifecyclePoints,
  modelFitFrom,
  moneyDistribution,
  monthIndex,
  whyBilled,
  type LiftFigures,
  type LiftMonth,
  type Report,
  type ReportName,
} from '@holdfast/dashboards';
import type { LiftRecord } from '../read-api/read-store.js';
import type { ReportStore } from './report-store.js';

const iso = (d: Date | null): string | null => (d === null ? null : new Date(d).toISOString());
const latest = (rows: readonly { as_of: Date }[]): Date | null =>
  rows.reduce<Date | null>((m, r) => (m === null || r.as_of > m ? r.as_of : m), null);

/**
 * One report of the key's account: the store's aggregate queries (in parallel where a report needs
 * several), shaped by @holdfast/dashboards' pure functions. `now` places the current month (how many
 * months the youngest cohorts have lived).
 */
export async function buildReport(
  name: ReportName,
  store: ReportStore,
  accountId: string,
  now: Date,
): Promise<Report> {
  switch (name) {
    case 'lifecycle-mix':
      return { report: name, points: lifecyclePoints(await store.lifecycleMix(accountId)) };
    case 'churn-risk': {
      const rows = (await store.scoreBins(accountId)).filter((r) => r.measure === 'churn_risk');
      const customers = rows.reduce((n, r) => n + r.customers, 0);
      const sum = rows.reduce((n, r) => n + r.total, 0);
      return {
        report: name,
        scored_at: iso(latest(rows)),
        customers,
        mean: customers ? Number((sum / customers).toFixed(6)) : null,
        bins: churnBins(new Map(rows.map((r) => [r.bucket, r.customers]))),
      };
    }
    case 'cohort-retention':
      return { report: name, cohorts: cohortsFrom(await store.cohortRetention(accountId), monthIndex(now)) };
    case 'value-distribution': {
      const [rows, currency] = await Promise.all([
        store.scoreBins(accountId),
        store.reportingCurrency(accountId),
      ]);
      return {
        report: name,
        currency,
        scored_at: iso(latest(rows)),
        revenue: moneyDistribution(rows.filter((r) => r.measure === 'realised_revenue')),
        lifetime_value: moneyDistribution(rows.filter((r) => r.measure === 'lifetime_value')),
      };
    }
    case 'campaign-funnel': {
      const [decisions, attributed, currency] = await Promise.all([
        store.campaignDecisions(accountId),
        store.attributed(accountId),
        store.reportingCurrency(accountId),
      ]);
      return { report: name, currency, types: funnelRows(decisions, attributed) };
    }
    case 'lift': {
      const [rows, currency] = await Promise.all([store.lift(accountId), store.reportingCurrency(accountId)]);
      return { report: name, currency, months: rows.map((r) => liftMonth(r, currency)) };
    }
    case 'model-fit':
      return { report: name, fits: (await store.modelFits(accountId)).map(modelFitFrom) };
  }
}

/** A stored lift report with whether the month is billed and the sentence saying why. */
export function liftMonth(r: LiftRecord, currency: string): LiftMonth {
  const figures: LiftFigures = {
    campaign_type: r.campaign_type,
    period_start: iso(r.period_start)!,
    treated_customers: r.treated_customers,
    holdout_customers: r.holdout_customers,
    lift: r.lift,
    interval: r.ci_low === null && r.ci_high === null ? null : { low: r.ci_low, high: r.ci_high },
    mde: r.mde,
    incremental_revenue: r.incremental_revenue,
    billable_revenue: r.billable_revenue,
    settlement_status: r.settlement_status,
    settles_at: iso(r.settles_at),
    settled_at: iso(r.settled_at),
    final_billable_revenue: r.final_billable_revenue,
  };
  return {
    ...figures,
    period_end: iso(r.period_end)!,
    p_value: r.p_value_greater,
    billed: billedAmount(figures) > 0,
    why: whyBilled(figures, currency),
  };
}
