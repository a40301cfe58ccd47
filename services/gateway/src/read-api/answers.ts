import { encodeCursor } from './cursor.js';
import type { CustomerRecord, LiftRecord, MemberRecord } from './read-store.js';

const iso = (d: Date | null): string | null => (d === null ? null : new Date(d).toISOString());

/**
 * A customer as the /v1/ read routes answer it: the profile, then `scores` (null until the
 * customer's first recompute). Money is in the account's reporting currency. `intervals` is null:
 * neither stored model (bgnbd-gg, heuristic) keeps a per-customer interval (analytics.customer_scores
 * holds point estimates and the fit's parameters only).
 *
 * @example
 * customerAnswer(record, 'USD').scores?.lifetime_value; // { amount: 182.5, currency: 'USD' }
 */
export function customerAnswer(r: CustomerRecord, currency: string) {
  const hasAddress = [
    r.address_street,
    r.address_city,
    r.address_state,
    r.address_zip,
    r.address_country,
  ].some((v) => v !== null);
  return {
    customer_id: r.customer_id,
    external_id: r.external_id,
    email: r.email,
    phone: r.phone,
    name: r.name,
    address: hasAddress
      ? {
          street: r.address_street,
          city: r.address_city,
          state: r.address_state,
          zip: r.address_zip,
          country: r.address_country,
        }
      : null,
    consent: {
      marketing_email: r.consent_marketing_email,
      sms: r.consent_sms,
      suppressed: r.consent_suppressed,
      bounced: r.consent_bounced,
    },
    subscription: { status: r.subscription_status, started_at: iso(r.subscription_started_at) },
    created_at: iso(r.created_at),
    updated_at: iso(r.as_of !== null && r.as_of > r.updated_at ? r.as_of : r.updated_at),
    scores:
      r.as_of === null
        ? null
        : {
            churn_risk: r.churn_risk,
            p_alive: r.p_alive,
            lifecycle_state: r.lifecycle_state,
            expected_purchases: { value: r.expected_purchases, horizon_days: r.horizon_days },
            predicted_next_purchase_at: iso(r.predicted_next_purchase_at),
            lifetime_value: { amount: r.lifetime_value, currency },
            scored_at: iso(r.as_of),
            model: r.model,
            intervals: null,
          },
  };
}

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
