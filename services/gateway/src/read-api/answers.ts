import { encodeCursor } from './cursor.js';
import type { LiftRecord, MemberRecord } from './read-store.js';

const iso = (d: Date | null): string | null => (d === null ? null : new Date(d).toISOString());

/**
 * A page of a keyset list: the first `limit` rows, and `next_cursor` (the last id's cursor) only
 * when the store found one row more.
 *
 * @example
 * page(rows, 100, (r) => r.customer_id, (r) => r); // { items, next_cursor }
 */
export function page<R, T>(rows: readonly R[], limit: number, idOf: (r: R) => string, map: (r: R) => T) {
  const items = rows.slice(0, limit);
  const last = items[items.length - 1];
  return {
    items: items.map(map),
    next_cursor: rows.length > limit && last !== undefined ? encodeCursor(idOf(last)) : null,
  };
}

export const memberAnswer = (m: MemberRecord) => ({ customer_id: m.customer_id, external_id: m.external_id });

/** A lift report: the estimate with its interval, the test, the MDE, billable revenue and settlement. */
export function liftAnswer(r: LiftRecord, currency: string) {
  return {
    campaign_type: r.campaign_type,
    period_start: iso(r.period_start),
    period_end: iso(r.period_end),
    treated_customers: r.treated_customers,
    holdout_customers: r.holdout_customers,
    lift: r.lift,
    interval: r.ci_low === null && r.ci_high === null ? null : { low: r.ci_low, high: r.ci_high },
    p_value: r.p_value_greater,
    significant: r.significant,
    mde: r.mde,
    incremental_revenue: r.incremental_revenue,
    billable_revenue: { amount: r.billable_revenue, currency },
    settlement: {
      status: r.settlement_status,
      settles_at: iso(r.settles_at),
      settled_at: iso(r.settled_at),
      final_billable_revenue: r.final_billable_revenue,
    },
    computed_at: iso(r.computed_at),
  };
}
