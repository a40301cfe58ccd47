import type { ValidationIssue } from '@holdfast/domain';
import { parseIntParam } from '../http/query.js';
import { ValidationFailedError } from '../http/validation-failed.js';
import { decodeCursor } from './cursor.js';

/** A page of a /v1/ list: at most `limit` rows after `after` (a customer id), in customer_id order. */
export interface PageParams {
  readonly limit: number;
  readonly after: string | null;
}

/** What GET /v1/customers filters on (every filter optional; all given must hold). */
export interface CustomerFilter {
  readonly lifecycleState: 'Stable' | 'Slowing' | 'Overdue' | 'Lapsed' | null;
  readonly churnRiskMin: number | null;
  readonly churnRiskMax: number | null;
  /** The profile or the scores changed at or after this time. */
  readonly updatedSince: Date | null;
}

/** Page sizes of the /v1/ lists: default 100, at most 5,000 (the size of an ingest batch). */
export const PAGE_LIMITS = Object.freeze({ fallback: 100, min: 1, max: 5000 });
const LIFECYCLE = ['Stable', 'Slowing', 'Overdue', 'Lapsed'] as const;

function single(query: Readonly<Record<string, unknown>>, name: string): string | undefined {
  const v = query[name];
  if (Array.isArray(v)) return typeof v[v.length - 1] === 'string' ? (v[v.length - 1] as string) : undefined;
  return typeof v === 'string' ? v : undefined;
}

/**
 * `limit` (1 to 5,000, default 100) and `cursor` (opaque, from `next_cursor`); a 422 otherwise.
 *
 * @example
 * parsePage({ limit: '500' }); // { limit: 500, after: null }
 */
export function parsePage(query: Readonly<Record<string, unknown>>): PageParams {
  return { limit: parseIntParam(query, 'limit', PAGE_LIMITS), after: decodeCursor(single(query, 'cursor')) };
}

/**
 * The filters of GET /v1/customers: `lifecycle_state` (Stable, Slowing, Overdue, Lapsed),
 * `churn_risk_min` and `churn_risk_max` (0 to 1), `updated_since` (ISO 8601 with offset). Every bad
 * value is one entry of one 422.
 *
 * @example
 * parseCustomerFilter({ lifecycle_state: 'Lapsed', churn_risk_min: '0.5' });
 */
export function parseCustomerFilter(query: Readonly<Record<string, unknown>>): CustomerFilter {
  const issues: ValidationIssue[] = [];
  const state = single(query, 'lifecycle_state');
  if (state !== undefined && !(LIFECYCLE as readonly string[]).includes(state))
    issues.push({
      type: 'enum',
      loc: ['query', 'lifecycle_state'],
      msg: "Input should be 'Stable', 'Slowing', 'Overdue' or 'Lapsed'",
      input: state,
    });
  const risk = (name: string): number | null => {
    const raw = single(query, name);
    if (raw === undefined) return null;
    const n = Number(raw);
    if (raw.trim() === '' || !Number.isFinite(n) || n < 0 || n > 1) {
      issues.push({
        type: 'value_error',
        loc: ['query', name],
        msg: 'Value error, a number from 0 to 1',
        input: raw,
      });
      return null;
    }
    return n;
  };
  const churnRiskMin = risk('churn_risk_min');
  const churnRiskMax = risk('churn_risk_max');
  const sinceRaw = single(query, 'updated_since');
  let updatedSince: Date | null = null;
  if (sinceRaw !== undefined) {
    const ok = /^\d{4}-\d{2}-\d{2}T\d{2}:\d{2}(:\d{2}(\.\d+)?)?(Z|[+-]\d{2}:?\d{2})$/i.test(sinceRaw);
    const t = ok ? new Date(sinceRaw) : null;
    if (!t || Number.isNaN(t.getTime()))
      issues.push({
        type: 'datetime_parsing',
        loc: ['query', 'updated_since'],
        msg: 'Input should be an ISO 8601 timestamp with a UTC offset',
        input: sinceRaw,
      });
    else updatedSince = t;
  }
  if (issues.length) throw new ValidationFailedError(issues);
  return {
    lifecycleState: (state as CustomerFilter['lifecycleState'] | undefined) ?? null,
    churnRiskMin,
    churnRiskMax,
    updatedSince,
  };
}
