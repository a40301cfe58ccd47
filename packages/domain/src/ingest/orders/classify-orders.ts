import type { OrderRowInput } from '@holdfast/contracts';
import type { SuppressionCheck } from '../../privacy/suppression.js';
import { createPhoneNormalizer } from '../shared/normalize-phone.js';
import type { RowError, RowWarning } from '../shared/row-issue.js';
import type { NormalizedOrder, OrderErrorCode, OrderWarningCode } from './normalized-order.js';
import { normalizeOrderRow } from './normalize-order-row.js';
import type { OrderRowOutcome } from './normalize-order-row.js';

/** Counters of an orders batch; `received = accepted + dropped_invalid + deduped_in_batch`. */
export interface OrderCounters {
  readonly received: number;
  /** Distinct order_id values among all received rows, dropped ones included. */
  readonly distinct_order_ids: number;
  /** Valid rows replaced by a later valid row with the same order_id. */
  readonly deduped_in_batch: number;
  readonly accepted: number;
  readonly dropped_invalid: number;
  /**
   * Valid rows dropped because they name a suppressed identifier (an erasure with `suppress`); not a
   * spec counter, added beside them: `received = accepted + dropped_invalid + deduped_in_batch + dropped_suppressed`.
   */
  readonly dropped_suppressed: number;
  /** Accepted rows whose order_date had no UTC offset (read as UTC). */
  readonly naive_timestamps: number;
}

/** A dropped row, for the dry run. */
export type OrderRowError = RowError<{ order_id: string }, OrderErrorCode>;

/** A row-level warning, for the dry run; `fields` only for `unknown_fields_ignored`. */
export type OrderRowWarning = RowWarning<{ order_id: string }, OrderWarningCode>;

/** The classification of one orders batch: what the real call writes and what the dry run reports. */
export interface OrdersClassification {
  readonly counters: OrderCounters;
  /** One order per distinct order_id: the content of its LAST valid row, at its FIRST valid row's position. */
  readonly accepted: readonly NormalizedOrder[];
  /** Every dropped row, in row order (the gateway shows the first 50). */
  readonly errors: readonly OrderRowError[];
  /** In row order. */
  readonly warnings: readonly OrderRowWarning[];
  /** Set when a currency is not a 3-letter code: the real call must fail the whole batch. */
  readonly batchFailure: null | {
    readonly code: 'invalid_currency_code_fails_whole_batch';
    readonly indexes: readonly number[];
  };
}

/**
 * Classifies the rows of a validated orders batch. Pure and deterministic: the real call writes
 * `accepted` (unless `batchFailure`), the dry run reports `errors` and `warnings`; the counters are the
 * response's.
 *
 * Decisions:
 * - each row is checked on its own (`normalizeOrderRow`); a row with any error code is dropped
 *   (`dropped_invalid`) and listed in `errors` with all its codes, so `errors.length === dropped_invalid`;
 * - duplicates are resolved among VALID rows: the last valid row of an order_id wins; each earlier valid
 *   row counts in `deduped_in_batch` and gets `duplicate_in_batch_last_wins` (at the earlier row's index).
 *   An invalid later row therefore does not erase an earlier valid one;
 * - `accepted` keeps first-seen order (the position of an order_id's first valid row) with the last
 *   row's content;
 * - `naive_timestamp_read_as_utc` and `unknown_fields_ignored` are reported for accepted (winning)
 *   rows only, and `naive_timestamps` counts those rows: replaced rows are not written;
 * - an invalid currency on any row sets `batchFailure` (with every such row's index); the row also
 *   counts as dropped so a dry run's counters stay consistent.
 * - a valid row naming a suppressed identifier (`suppressed`, see `suppressionCheck`) is dropped with
 *   the code `suppressed_identity` and counted in `dropped_suppressed`, not `dropped_invalid`;
 * `now` is accepted for symmetry with the other rules; no order rule depends on the clock today.
 *
 * @example
 * const v = validateOrdersRequest(body);
 * if (v.ok) { const c = classifyOrders(v.rows, { now }); } // now: the request's clock, from the gateway
 */
export function classifyOrders(
  rows: readonly OrderRowInput[],
  opts: { now: Date; suppressed?: SuppressionCheck },
): OrdersClassification {
  const normalizePhone = createPhoneNormalizer();
  const outcomes: OrderRowOutcome[] = new Array<OrderRowOutcome>(rows.length);
  // order_id → index of its last valid row (-1 while it has none).
  const lastValid = new Map<string, number>();
  for (let i = 0; i < rows.length; i++) {
    const row = rows[i]!;
    let outcome = normalizeOrderRow(row, normalizePhone);
    const o = outcome.order;
    if (o !== null && opts.suppressed?.({ externalId: o.customer_id, email: o.email, phone: o.phone }))
      outcome = { order: null, codes: ['suppressed_identity'], naive: false, unknownFields: null };
    outcomes[i] = outcome;
    if (outcome.order !== null) lastValid.set(row.order_id, i);
    else if (!lastValid.has(row.order_id)) lastValid.set(row.order_id, -1);
  }

  const accepted: NormalizedOrder[] = [];
  const errors: OrderRowError[] = [];
  const warnings: OrderRowWarning[] = [];
  const emitted = new Set<string>();
  const badCurrency: number[] = [];
  let deduped = 0;
  let naive = 0;
  let suppressedRows = 0;
  for (let i = 0; i < rows.length; i++) {
    const orderId = rows[i]!.order_id;
    const outcome = outcomes[i]!;
    if (outcome.order === null) {
      errors.push({ index: i, order_id: orderId, codes: outcome.codes });
      if (outcome.codes[0] === 'suppressed_identity') suppressedRows++;
      if (outcome.codes.includes('invalid_currency_code_fails_whole_batch')) badCurrency.push(i);
      continue;
    }
    const last = lastValid.get(orderId)!;
    if (last !== i) {
      deduped++;
      warnings.push({ index: i, order_id: orderId, code: 'duplicate_in_batch_last_wins' });
    } else {
      if (outcome.naive) {
        naive++;
        warnings.push({ index: i, order_id: orderId, code: 'naive_timestamp_read_as_utc' });
      }
      if (outcome.unknownFields !== null)
        warnings.push({
          index: i,
          order_id: orderId,
          code: 'unknown_fields_ignored',
          fields: outcome.unknownFields,
        });
    }
    if (!emitted.has(orderId)) {
      emitted.add(orderId);
      accepted.push(outcomes[last]!.order!);
    }
  }

  return {
    counters: {
      received: rows.length,
      distinct_order_ids: lastValid.size,
      deduped_in_batch: deduped,
      accepted: accepted.length,
      dropped_invalid: errors.length - suppressedRows,
      dropped_suppressed: suppressedRows,
      naive_timestamps: naive,
    },
    accepted,
    errors,
    warnings,
    batchFailure:
      badCurrency.length > 0
        ? { code: 'invalid_currency_code_fails_whole_batch', indexes: badCurrency }
        : null,
  };
}
