import type { BatchStatus, IngestBatchRecorded } from '@holdfast/contracts';
import { LIMITS } from '../limits/policy.js';
import type { EventFactory, RequestMeta } from './event-factory.js';
import type { ValidationIssue } from '@holdfast/domain';

/**
 * What the record of one ingest call says besides its outcome. `errors` carries the client's own ids
 * only (order_id, external_id) and codes, or the loc/type of 422 entries: never names, emails or
 * phones, and never a 422's `input`, which could be one.
 */
export interface BatchSummary {
  readonly endpoint: string;
  readonly dryRun: boolean;
  readonly received: number;
  readonly accepted: number;
  readonly dropped: number;
  readonly errorCodes: readonly string[];
  readonly warningCodes: readonly string[];
  readonly errors: readonly unknown[];
  readonly syncTaskId: string | null;
}

/**
 * A batch that received nothing and kept nothing: the defaults a route's own summary overrides.
 * Frozen, arrays included: every request spreads it, so a push into it would leak between requests.
 */
export const EMPTY_BATCH_SUMMARY: Omit<BatchSummary, 'endpoint'> = Object.freeze({
  dryRun: false,
  received: 0,
  accepted: 0,
  dropped: 0,
  errorCodes: Object.freeze([]),
  warningCodes: Object.freeze([]),
  errors: Object.freeze([]),
  syncTaskId: null,
});

/** The outcome part of a batch record. */
export interface BatchOutcome {
  readonly status: BatchStatus;
  readonly httpStatus: number;
  readonly durationMs: number;
}

/** Distinct values, in first-seen order. */
export function distinct<T>(values: Iterable<T>): T[] {
  return [...new Set(values)];
}

/**
 * The row errors a dry run lists and a batch record keeps: the first `LIMITS.dryRunEntries`, each
 * with its index, the row's id and its codes (copied).
 */
export function listedRowErrors<E extends { readonly codes: readonly string[] }>(
  errors: readonly E[],
): (E & { codes: E['codes'][number][] })[] {
  return errors.slice(0, LIMITS.dryRunEntries).map((e) => ({ ...e, codes: [...e.codes] }));
}

/** What a batch record keeps of a batch's row issues: the distinct codes and the listed errors. */
export function rowIssueFacts<E extends { readonly codes: readonly string[] }>(c: {
  readonly errors: readonly E[];
  readonly warnings: readonly { readonly code: string }[];
}) {
  return {
    errorCodes: distinct(c.errors.flatMap((e) => e.codes)),
    warningCodes: distinct(c.warnings.map((w) => w.code)),
    errors: listedRowErrors(c.errors),
  };
}

/** 422 entries as a batch record keeps them: where and what, never the offending input. */
export function issuesForRecord(issues: readonly ValidationIssue[]): unknown[] {
  return issues.slice(0, LIMITS.dryRunEntries).map((i) => ({ loc: i.loc, type: i.type, msg: i.msg }));
}

/** The batch status of an HTTP answer (sync calls that queued a task are `queued`). */
export function batchStatusOf(httpStatus: number): BatchStatus {
  if (httpStatus >= 500) return 'error';
  if (httpStatus >= 400) return 'rejected';
  return 'accepted';
}

/** The IngestBatchRecorded event of one call. */
export function batchRecorded(
  events: EventFactory,
  meta: RequestMeta,
  summary: BatchSummary,
  outcome: BatchOutcome,
): IngestBatchRecorded {
  const errors = summary.errors.slice(0, LIMITS.dryRunEntries);
  return {
    metadata: events.metadata(meta),
    endpoint: summary.endpoint,
    dry_run: summary.dryRun,
    status: outcome.status,
    http_status: outcome.httpStatus,
    received: summary.received,
    accepted: summary.accepted,
    dropped: summary.dropped,
    error_codes: [...summary.errorCodes],
    warning_codes: [...summary.warningCodes],
    errors_json: errors.length ? JSON.stringify(errors) : null,
    duration_ms: Math.max(0, Math.round(outcome.durationMs)),
    sync_task_id: summary.syncTaskId,
  };
}
