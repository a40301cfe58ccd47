import type { CustomersClassification } from '@holdfast/domain';
import { LIMITS } from '../limits/policy.js';
import { listedRowErrors, rowIssueFacts } from './batch-record.js';

/** The spec's answer to a real POST /ingest/customers. */
export function customersResponse(c: CustomersClassification) {
  return {
    received: c.counters.received,
    customers_upserted: c.counters.customers_upserted,
    skipped_no_identity: c.counters.skipped_no_identity,
    subscriptions_applied: c.counters.subscriptions_applied,
    // Added to the spec's fields, only when some row named a suppressed (erased) identifier.
    ...(c.counters.skipped_suppressed > 0 ? { skipped_suppressed: c.counters.skipped_suppressed } : {}),
  };
}

function customersNext(c: CustomersClassification): string {
  const parts: string[] = [];
  const skipped = c.counters.skipped_no_identity;
  if (skipped > 0)
    parts.push(
      `${skipped} row${skipped === 1 ? '' : 's'} would be skipped (no external_id, email or phone): fix the rows listed in errors.`,
    );
  const suppressed = c.counters.skipped_suppressed;
  if (suppressed > 0)
    parts.push(
      `${suppressed} row${suppressed === 1 ? '' : 's'} would be skipped: they name an erased and suppressed person (suppressed_identity).`,
    );
  parts.push(
    c.counters.customers_upserted > 0
      ? 'Nothing was written: POST again without dry_run to write.'
      : 'Nothing was written.',
  );
  return parts.join(' ');
}

/**
 * The customers dry run (the spec leaves its shape open; it mirrors the orders dry run):
 * `{dry_run, received, would_accept, would_drop, would_apply_subscriptions, errors: [{index,
 * external_id, codes}], warnings: [{index, external_id, code, fields}], errors_truncated, next}`,
 * at most 50 errors and 50 warnings.
 */
export function customersDryRunResponse(c: CustomersClassification) {
  return {
    dry_run: true as const,
    received: c.counters.received,
    would_accept: c.counters.customers_upserted,
    would_drop: c.counters.skipped_no_identity + c.counters.skipped_suppressed,
    would_apply_subscriptions: c.counters.subscriptions_applied,
    errors: listedRowErrors(c.errors),
    warnings: c.warnings.slice(0, LIMITS.dryRunEntries).map((w) => ({
      index: w.index,
      external_id: w.external_id,
      code: w.code,
      fields: [...(w.fields ?? [])],
    })),
    errors_truncated: Math.max(0, c.errors.length - LIMITS.dryRunEntries),
    next: customersNext(c),
  };
}

/** Row errors and codes as the batch record keeps them (client customer ids and codes only). */
export function customersRecordFacts(c: CustomersClassification) {
  return {
    received: c.counters.received,
    accepted: c.counters.customers_upserted,
    dropped: c.counters.skipped_no_identity + c.counters.skipped_suppressed,
    ...rowIssueFacts(c),
  };
}
