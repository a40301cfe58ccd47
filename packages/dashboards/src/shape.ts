// From the aggregate rows the gateway's report queries return to the report shapes (reports.ts). Pure:
// the SQL counts, these functions only arrange.
import {
  LIFECYCLE_STATES,
  type Cohort,
  type FunnelRow,
  type LifecyclePoint,
  type LifecycleState,
  type ModelFit,
} from './reports.js';

const iso = (d: Date | string): string => new Date(d).toISOString();

/**
 * Lifecycle points, oldest first, from (as_of, state, customers) rows: every state present in every
 * point (0 when a recompute found nobody in it).
 *
 * @example
 * lifecyclePoints([{ as_of, lifecycle_state: 'Stable', customers: 3 }]);
 * // [{ as_of, customers: { Stable: 3, Slowing: 0, Overdue: 0, Lapsed: 0 }, total: 3 }]
 */
export function lifecyclePoints(
  rows: readonly { as_of: Date | string; lifecycle_state: string; customers: number }[],
): LifecyclePoint[] {
  const byTime = new Map<string, Record<LifecycleState, number>>();
  for (const r of rows) {
    const key = iso(r.as_of);
    const counts = byTime.get(key) ?? { Stable: 0, Slowing: 0, Overdue: 0, Lapsed: 0 };
    if ((LIFECYCLE_STATES as readonly string[]).includes(r.lifecycle_state))
      counts[r.lifecycle_state as LifecycleState] += r.customers;
    byTime.set(key, counts);
  }
  return [...byTime.entries()]
    .sort(([a], [b]) => a.localeCompare(b))
    .map(([as_of, customers]) => ({
      as_of,
      customers,
      total: LIFECYCLE_STATES.reduce((n, s) => n + customers[s], 0),
    }));
}

/**
 * Cohorts from (cohort month index, months since, customers) rows, where a month index is
 * year × 12 + month − 1 (UTC): oldest cohort first, `active` dense from month 0 to the cohort's last
 * month before `nowMonth` (a month with no returning customer is 0; months not yet lived are absent),
 * and `customers` = month 0.
 *
 * @example
 * cohortsFrom([{ cohort: 24322, k: 0, customers: 10 }, { cohort: 24322, k: 2, customers: 3 }], 24324);
 * // [{ cohort: '2026-11', customers: 10, active: [10, 0, 3] }]
 */
export function cohortsFrom(
  rows: readonly { cohort: number; k: number; customers: number }[],
  nowMonth: number,
): Cohort[] {
  const by = new Map<number, Map<number, number>>();
  for (const r of rows) {
    const m = by.get(r.cohort) ?? new Map<number, number>();
    m.set(r.k, (m.get(r.k) ?? 0) + r.customers);
    by.set(r.cohort, m);
  }
  return [...by.keys()]
    .sort((a, b) => a - b)
    .map((c) => {
      const m = by.get(c)!;
      const lived = Math.max(nowMonth - c, ...m.keys());
      const active = Array.from({ length: lived + 1 }, (_, k) => m.get(k) ?? 0);
      return { cohort: monthLabel(c), customers: active[0]!, active };
    });
}

/** The month index (year × 12 + month − 1) of a time, in UTC. */
export const monthIndex = (d: Date): number => d.getUTCFullYear() * 12 + d.getUTCMonth();

/** 'YYYY-MM' of a month index. */
export const monthLabel = (m: number): string =>
  `${Math.floor(m / 12)}-${String((m % 12) + 1).padStart(2, '0')}`;

/** Statuses of analytics.campaign_assignments, by funnel stage (docs/campaigns.md). */
const TREATED = new Set([
  'planned',
  'sending',
  'sent',
  'possibly_sent',
  'failed',
  'sandbox_simulated',
  'merchant_sent',
]);
const SENT = new Set(['sent', 'possibly_sent', 'merchant_sent']);
const NOT_SENT = new Set(['disabled', 'no_consent', 'suppressed', 'capped']);

/**
 * The funnel per campaign type, from decision counts per (type, status) and attributed orders and
 * revenue per type; types in name order, a type with attributions but no decision included.
 */
export function funnelRows(
  decisions: readonly { campaign_type: string; status: string; decisions: number }[],
  attributed: readonly { campaign_type: string; orders: number; revenue: number }[],
): FunnelRow[] {
  const rows = new Map<string, { -readonly [K in keyof FunnelRow]: FunnelRow[K] }>();
  const row = (t: string) => {
    let r = rows.get(t);
    if (!r) {
      r = {
        campaign_type: t,
        decided: 0,
        held_out: 0,
        not_sent: 0,
        treated: 0,
        sent: 0,
        failed: 0,
        attributed_orders: 0,
        attributed_revenue: 0,
      };
      rows.set(t, r);
    }
    return r;
  };
  for (const d of decisions) {
    const r = row(d.campaign_type);
    r.decided += d.decisions;
    if (d.status === 'held_out') r.held_out += d.decisions;
    if (NOT_SENT.has(d.status)) r.not_sent += d.decisions;
    if (TREATED.has(d.status)) r.treated += d.decisions;
    if (SENT.has(d.status)) r.sent += d.decisions;
    if (d.status === 'failed') r.failed += d.decisions;
  }
  for (const a of attributed) {
    const r = row(a.campaign_type);
    r.attributed_orders += a.orders;
    r.attributed_revenue = Number((r.attributed_revenue + a.revenue).toFixed(4));
  }
  return [...rows.values()].sort((a, b) => a.campaign_type.localeCompare(b.campaign_type));
}

/** A fit row of analytics.model_fits as the report shows it: the parameters picked out of `params`. */
export function modelFitFrom(r: {
  as_of: Date | string;
  model: 'bgnbd-gg' | 'heuristic';
  converged: boolean;
  log_likelihood: number | null;
  customers: number;
  repeat_customers: number;
  params: Record<string, unknown> | null;
}): ModelFit {
  const params = r.params ?? {};
  const numbers = <K extends string>(o: unknown, keys: readonly K[]): Record<K, number> | null => {
    if (typeof o !== 'object' || o === null) return null;
    const rec = o as Record<string, unknown>;
    return keys.every((k) => typeof rec[k] === 'number' && Number.isFinite(rec[k]))
      ? (Object.fromEntries(keys.map((k) => [k, rec[k]])) as Record<K, number>)
      : null;
  };
  return {
    as_of: iso(r.as_of),
    model: r.model,
    converged: r.converged,
    log_likelihood: r.log_likelihood,
    customers: r.customers,
    repeat_customers: r.repeat_customers,
    fallback_reason: typeof params.fallback_reason === 'string' ? params.fallback_reason : null,
    bgnbd: numbers(params.bgnbd, ['r', 'alpha', 'a', 'b'] as const),
    gamma_gamma: numbers(params.gamma_gamma, ['p', 'q', 'gamma'] as const),
  };
}
