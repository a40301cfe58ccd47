import type { OrderRowInput } from '@holdfast/contracts';
import {
  echoable,
  MAX_VALIDATION_ISSUES,
  naiveTimestampWarning,
  nextHint,
  type NormalizedOrder,
  type OrdersClassification,
  type ValidationIssue,
} from '@holdfast/domain';
import { LIMITS } from '../limits/policy.js';
import { listedRowErrors, rowIssueFacts } from './batch-record.js';

/** The spec's answer to a real POST /ingest/orders. */
export interface OrdersResponse {
  readonly received: number;
  readonly distinct_order_ids: number;
  readonly deduped_in_batch: number;
  readonly accepted: number;
  readonly dropped_invalid: number;
  readonly orders_upserted: number;
  readonly customers_upserted: number;
  readonly naive_timestamps: number;
  /** Added to the spec's fields, only when some row named a suppressed (erased) identifier. */
  readonly dropped_suppressed?: number;
  readonly next: string;
  readonly warning?: string;
}

/**
 * Distinct customer identities carried by the accepted orders: the customer_id when present, else
 * the email, else the phone (the order in which identity resolution tries them). This is how many
 * customers the batch upserts, not how many the read side will newly create.
 */
export function distinctIdentities(orders: readonly NormalizedOrder[]): number {
  const ids = new Set<string>();
  for (const o of orders) {
    if (o.customer_id !== null) ids.add(`id:${o.customer_id}`);
    else if (o.email !== null) ids.add(`email:${o.email}`);
    else if (o.phone !== null) ids.add(`phone:${o.phone}`);
  }
  return ids.size;
}

export function ordersResponse(c: OrdersClassification): OrdersResponse {
  const k = c.counters;
  return {
    received: k.received,
    distinct_order_ids: k.distinct_order_ids,
    deduped_in_batch: k.deduped_in_batch,
    accepted: k.accepted,
    dropped_invalid: k.dropped_invalid,
    orders_upserted: c.accepted.length,
    customers_upserted: distinctIdentities(c.accepted),
    naive_timestamps: k.naive_timestamps,
    ...(k.dropped_suppressed > 0 ? { dropped_suppressed: k.dropped_suppressed } : {}),
    next: nextHint(k),
    ...(k.naive_timestamps > 0 ? { warning: naiveTimestampWarning(k.naive_timestamps) } : {}),
  };
}

function currencySentence(indexes: readonly number[], dryRun: boolean): string {
  const rows = indexes.length === 1 ? `Row ${indexes[0]}` : `Rows ${indexes.slice(0, 10).join(', ')}`;
  const more = indexes.length > 10 ? ` (and ${indexes.length - 10} more)` : '';
  const verb = dryRun ? 'would fail' : 'failed';
  const carry = indexes.length === 1 ? 'carries' : 'carry';
  return `${rows}${more} ${carry} a currency that is not a 3-letter ISO 4217 code: the whole batch ${verb} and nothing ${dryRun ? 'would be' : 'was'} written. Fix or omit currency (default USD).`;
}

/**
 * The dry-run answer (spec "Dry-run response (orders)"). When a currency would fail the whole batch,
 * nothing would be accepted: would_accept is 0 and would_drop is every received row.
 */
export function ordersDryRunResponse(c: OrdersClassification) {
  const k = c.counters;
  const failed = c.batchFailure !== null;
  return {
    dry_run: true as const,
    received: k.received,
    would_accept: failed ? 0 : k.accepted,
    would_drop: failed ? k.received : k.dropped_invalid + k.dropped_suppressed,
    errors: listedRowErrors(c.errors),
    warnings: c.warnings.slice(0, LIMITS.dryRunEntries).map((w) => ({
      index: w.index,
      order_id: w.order_id,
      code: w.code,
      ...(w.code === 'unknown_fields_ignored' ? { fields: [...(w.fields ?? [])] } : {}),
    })),
    errors_truncated: Math.max(0, c.errors.length - LIMITS.dryRunEntries),
    next: failed
      ? `${currencySentence(c.batchFailure.indexes, true)} Nothing was written.`
      : nextHint(k, { dryRun: true }),
  };
}

/**
 * The 422 of a real call whose batch carries a currency longer (or other) than 3 letters: one entry
 * per such row, at `['body', 'orders', i, 'currency']`. Nothing of the batch is written.
 */
export function currencyIssues(
  rows: readonly OrderRowInput[],
  indexes: readonly number[],
): ValidationIssue[] {
  return indexes.slice(0, MAX_VALIDATION_ISSUES).map((i) => {
    const loc = ['body', 'orders', i, 'currency'];
    const input = rows[i]?.currency ?? null;
    return {
      type: 'invalid_currency_code_fails_whole_batch',
      loc,
      msg: 'Currency must be a 3-letter ISO 4217 code; one invalid currency fails the whole batch and nothing was written',
      ...(echoable(loc, input) ? { input } : {}),
    };
  });
}

/** Row errors and codes as the batch record keeps them (client order ids and codes only). */
export function ordersRecordFacts(c: OrdersClassification) {
  return rowIssueFacts(c);
}
