import { dayOf, formatCount, formatMoney, monthName } from './format.js';

/** The figures of one lift report (analytics.lift_reports) that decide its bill. */
export interface LiftFigures {
  readonly campaign_type: string;
  readonly period_start: string;
  readonly treated_customers: number;
  readonly holdout_customers: number;
  /** Revenue per customer, treated − holdout; null with fewer than two customers in a group. */
  readonly lift: number | null;
  readonly interval: { readonly low: number | null; readonly high: number | null } | null;
  readonly mde: number | null;
  readonly incremental_revenue: number | null;
  readonly billable_revenue: number;
  readonly settlement_status: 'provisional' | 'final';
  readonly settles_at: string | null;
  readonly settled_at: string | null;
  readonly final_billable_revenue: number | null;
}

/** What is billed for the month: the settled figure once final, else the provisional one. */
export function billedAmount(r: LiftFigures): number {
  return r.settlement_status === 'final' ? (r.final_billable_revenue ?? 0) : r.billable_revenue;
}

/**
 * Why a month of a campaign type is or is not billed, in one plain sentence a merchant can check
 * against the figures beside it. It restates the billing rule (docs/analytics.md, "Lift reports and
 * billing"): the incremental revenue is billed only when the 95% interval of the lift lies above zero;
 * with fewer than two customers in either group there is no estimate; a loss bills nothing. Then
 * whether the figure may still move (provisional until settlement) or is final.
 *
 * @example
 * whyBilled(report, 'USD');
 * // 'Billed $1,200.00 for win_back in November 2026: treated customers spent $12.00 more each than the
 * //  holdout, and the 95% interval ($3.10 to $20.90) is above zero, so the $1,200.00 of incremental
 * //  revenue over 100 treated customers is proven. Provisional until 2027-01-30: refunds until then
 * //  can still change it.'
 */
export function whyBilled(r: LiftFigures, currency: string): string {
  const money = (v: number) => formatMoney(v, currency);
  const what = `${r.campaign_type} in ${monthName(r.period_start)}`;
  const amount = billedAmount(r);
  const low = r.interval?.low ?? null;
  const high = r.interval?.high ?? null;
  const range = low !== null && high !== null ? `${money(low)} to ${money(high)}` : null;
  let reason: string;
  if (amount > 0) {
    reason =
      `Billed ${money(amount)} for ${what}: treated customers spent ${money(r.lift ?? 0)} more each than the holdout, ` +
      `and the 95% interval${range ? ` (${range})` : ''} is above zero, so the ${money(amount)} ` +
      `of incremental revenue over ${formatCount(r.treated_customers)} treated customers is proven.`;
  } else if (r.lift === null) {
    reason =
      `Not billed for ${what}: lift needs at least two customers in each group, and there were ` +
      `${formatCount(r.treated_customers)} treated and ${formatCount(r.holdout_customers)} held out.`;
  } else if (r.lift <= 0) {
    reason =
      `Not billed for ${what}: treated customers spent ${r.lift === 0 ? 'no more than' : `${money(-r.lift)} less each than`} ` +
      `the holdout, so the campaign added no revenue to bill.`;
  } else {
    const mde =
      r.mde !== null && Number.isFinite(r.mde)
        ? ` With ${formatCount(r.treated_customers)} treated and ${formatCount(r.holdout_customers)} held-out customers, only a lift of about ${money(r.mde)} per customer could be proven.`
        : '';
    reason =
      `Not billed for ${what}: treated customers spent ${money(r.lift)} more each than the holdout, but the 95% interval` +
      `${range ? ` (${range})` : ''} includes zero, so the lift is not proven.${mde}`;
  }
  return `${reason} ${settlementNote(r)}`;
}

/** Whether the month's figure can still move (provisional until its settlement date) or is final. */
function settlementNote(r: LiftFigures): string {
  if (r.settlement_status === 'final')
    return `Final${r.settled_at ? ` since ${dayOf(r.settled_at)}` : ''}: it no longer changes.`;
  return `Provisional${r.settles_at ? ` until ${dayOf(r.settles_at)}` : ''}: refunds until then can still change it.`;
}
