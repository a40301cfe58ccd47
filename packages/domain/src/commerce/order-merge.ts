import type { OrderUpserted } from '@holdfast/contracts';
import { instantKey } from './instant.js';

/** The fields an OrderUpserted carries for the row (the customer already resolved). */
export interface OrderFields {
  /** The resolved customer (null when the order named none). */
  readonly customerId: string | null;
  readonly externalCustomerId: string | null;
  readonly orderDate: string;
  readonly orderAmount: number;
  readonly productName: string;
  readonly email: string | null;
  readonly phone: string | null;
  readonly customerName: string | null;
  readonly source: string | null;
  readonly orderChannel: string | null;
  readonly currency: string;
  readonly shippingCity: string | null;
  readonly shippingState: string | null;
  readonly shippingZip: string | null;
  /** Cumulative refunds; null = not carried. */
  readonly refundedAmount: number | null;
  readonly discountTotal: number | null;
  readonly discountPct: number | null;
  readonly discountCodes: readonly string[] | null;
  readonly cancelledAt: string | null;
}

/** One OrderUpserted, ready to merge into read_models.orders. */
export interface OrderWrite extends OrderFields {
  readonly accountId: string;
  readonly orderId: string;
  readonly receivedAt: string;
}

/**
 * The write an OrderUpserted makes, once its customer is resolved: the event's fields under the
 * columns' names (the event's `customer_id` is the merchant's, stored as external_customer_id).
 * Spelled out rather than looped over ORDER_COLUMN_RULES: it runs for every order of a backfill, and
 * `order-merge.test.ts` checks every rule's field is taken from the event's column of that name.
 *
 * @example
 * orderWriteOf(event, { accountId, customerId: 'c-uuid', receivedAt: event.metadata.received_at });
 */
export function orderWriteOf(
  { order: o }: Pick<OrderUpserted, 'order'>,
  at: { readonly accountId: string; readonly customerId: string | null; readonly receivedAt: string },
): OrderWrite {
  return {
    accountId: at.accountId,
    orderId: o.order_id,
    customerId: at.customerId,
    externalCustomerId: o.customer_id,
    orderDate: o.order_date,
    orderAmount: o.order_amount,
    productName: o.product_name,
    email: o.email,
    phone: o.phone,
    customerName: o.customer_name,
    source: o.source,
    orderChannel: o.order_channel,
    currency: o.currency,
    shippingCity: o.shipping_city,
    shippingState: o.shipping_state,
    shippingZip: o.shipping_zip,
    refundedAmount: o.refunded_amount,
    discountTotal: o.discount_total,
    discountPct: o.discount_pct,
    discountCodes: o.discount_codes,
    cancelledAt: o.cancelled_at,
    receivedAt: at.receivedAt,
  };
}

/** A stored order row (read_models.orders, net_amount aside). */
export interface OrderRow extends Omit<OrderFields, 'refundedAmount'> {
  readonly accountId: string;
  readonly orderId: string;
  /** A refund never carried reads as 0. */
  readonly refundedAmount: number;
  readonly firstSeenAt: string;
  /** received_at of the latest write that changed the row. */
  readonly updatedAt: string;
}

/**
 * How a column merges on a re-post of the same order_id (spec: "Order merge rules"):
 * - `first_write`: never changes after the first write (order_date, the customer);
 * - `last_write`: the re-post's value, null included;
 * - `forward_only`: moves forward only, and a re-post that does not carry it keeps it (refunds are
 *   cumulative, cancellations final).
 */
export type OrderMergeRule = 'first_write' | 'last_write' | 'forward_only';

/** How a column's values compare: amounts as stored (numeric(18,4)), times to the microsecond. */
export type OrderValueKind = 'text' | 'amount' | 'number' | 'instant' | 'texts';

/** One column of read_models.orders and its merge rule. */
export interface OrderColumnRule {
  readonly field: keyof OrderFields;
  readonly column: string;
  readonly rule: OrderMergeRule;
  readonly kind: OrderValueKind;
}

/**
 * Every merged column of an order, in the table's order: the one declarative list of the order merge.
 * The projector's SQL update takes its last-write-wins columns from here (a test pins it).
 */
export const ORDER_COLUMN_RULES: readonly OrderColumnRule[] = Object.freeze([
  { field: 'customerId', column: 'customer_id', rule: 'first_write', kind: 'text' },
  { field: 'externalCustomerId', column: 'external_customer_id', rule: 'first_write', kind: 'text' },
  { field: 'orderDate', column: 'order_date', rule: 'first_write', kind: 'instant' },
  { field: 'orderAmount', column: 'order_amount', rule: 'last_write', kind: 'amount' },
  { field: 'productName', column: 'product_name', rule: 'last_write', kind: 'text' },
  { field: 'email', column: 'email', rule: 'last_write', kind: 'text' },
  { field: 'phone', column: 'phone', rule: 'last_write', kind: 'text' },
  { field: 'customerName', column: 'customer_name', rule: 'last_write', kind: 'text' },
  { field: 'source', column: 'source', rule: 'last_write', kind: 'text' },
  { field: 'orderChannel', column: 'order_channel', rule: 'last_write', kind: 'text' },
  { field: 'currency', column: 'currency', rule: 'last_write', kind: 'text' },
  { field: 'shippingCity', column: 'shipping_city', rule: 'last_write', kind: 'text' },
  { field: 'shippingState', column: 'shipping_state', rule: 'last_write', kind: 'text' },
  { field: 'shippingZip', column: 'shipping_zip', rule: 'last_write', kind: 'text' },
  { field: 'refundedAmount', column: 'refunded_amount', rule: 'forward_only', kind: 'amount' },
  { field: 'discountTotal', column: 'discount_total', rule: 'last_write', kind: 'amount' },
  { field: 'discountPct', column: 'discount_pct', rule: 'last_write', kind: 'number' },
  { field: 'discountCodes', column: 'discount_codes', rule: 'last_write', kind: 'texts' },
  { field: 'cancelledAt', column: 'cancelled_at', rule: 'forward_only', kind: 'instant' },
]);

/** The columns of one rule, in table order. */
export function orderColumns(rule: OrderMergeRule): string[] {
  return ORDER_COLUMN_RULES.filter((r) => r.rule === rule).map((r) => r.column);
}

/** A column's value in a write or a row. */
export type OrderValue = string | number | readonly string[] | null;
type Value = OrderValue;

const round4 = (n: number) => Math.round(n * 10_000) / 10_000;

/** The value as stored: amounts at four decimals (numeric(18,4)). */
function stored(kind: OrderValueKind, v: Value): Value {
  return kind === 'amount' && typeof v === 'number' ? round4(v) : v;
}

/**
 * What a first write stores in a column: the write's value, except that a forward-only amount not
 * carried (a refund) is 0, so later refunds compare against a number. Not rounded: the column's type
 * rounds (see {@link evolveOrder} for the stored form).
 */
export function firstWriteValue(rule: OrderColumnRule, write: OrderFields): OrderValue {
  const v = write[rule.field];
  return v === null && rule.rule === 'forward_only' && rule.kind === 'amount' ? 0 : v;
}

function same(kind: OrderValueKind, a: Value, b: Value): boolean {
  if (a === null || b === null) return a === b;
  if (kind === 'texts') {
    const x = a as readonly string[];
    const y = b as readonly string[];
    return x.length === y.length && x.every((s, i) => s === y[i]);
  }
  if (kind === 'instant') return instantKey(a as string) === instantKey(b as string);
  return a === b;
}

/** Whether `next` moves a forward-only value on from `current` (null = not carried, never wins). */
function later(kind: OrderValueKind, current: Value, next: Value): boolean {
  if (next === null) return false;
  if (current === null) return true;
  return kind === 'instant'
    ? instantKey(next as string) > instantKey(current as string)
    : (next as number) > (current as number);
}

/**
 * The order merge (evolve): the row after `write`, and whether it changed. A first write stores the
 * write as is (a refund not carried is 0; first_seen_at = updated_at = received_at). A re-post applies
 * {@link ORDER_COLUMN_RULES}; updated_at moves (never back) only when a value changed, so a re-post
 * that repeats what is stored writes nothing. Duplicates inside one batch are applied in batch
 * order, so the last row wins ({@link evolveOrders}).
 *
 * @example
 * const { row } = evolveOrder(null, write);
 * evolveOrder(row, { ...write, refundedAmount: 5 }).row.refundedAmount; // max(stored, 5)
 */
export function evolveOrder(
  stored_: OrderRow | null,
  write: OrderWrite,
): { row: OrderRow; changed: boolean } {
  if (stored_ === null) {
    const row: Record<string, Value> = {};
    for (const r of ORDER_COLUMN_RULES) row[r.field] = stored(r.kind, firstWriteValue(r, write));
    return {
      row: {
        ...(row as unknown as Omit<OrderRow, 'accountId' | 'orderId' | 'firstSeenAt' | 'updatedAt'>),
        accountId: write.accountId,
        orderId: write.orderId,
        firstSeenAt: write.receivedAt,
        updatedAt: write.receivedAt,
      },
      changed: true,
    };
  }
  const next: Record<string, Value> = { ...stored_ };
  let changed = false;
  for (const r of ORDER_COLUMN_RULES) {
    const current = stored_[r.field as keyof OrderRow];
    const value = stored(r.kind, write[r.field]);
    if (r.rule === 'last_write') {
      next[r.field] = value;
      if (!same(r.kind, current, value)) changed = true;
    } else if (r.rule === 'forward_only' && later(r.kind, current, value)) {
      next[r.field] = value;
      changed = true;
    }
  }
  if (!changed) return { row: stored_, changed: false };
  next.updatedAt =
    instantKey(write.receivedAt) > instantKey(stored_.updatedAt) ? write.receivedAt : stored_.updatedAt;
  return { row: next as unknown as OrderRow, changed: true };
}

/**
 * Applies writes in log order (a batch's rows in batch order) to the stored rows, keyed by
 * `account\0order_id`; returns the new map.
 *
 * @example
 * const rows = evolveOrders(new Map(), [v1, v2]); // v2 merged over v1
 */
export function evolveOrders(
  rows: ReadonlyMap<string, OrderRow>,
  writes: Iterable<OrderWrite>,
): Map<string, OrderRow> {
  const out = new Map(rows);
  for (const w of writes) {
    const key = `${w.accountId}\u0000${w.orderId}`;
    out.set(key, evolveOrder(out.get(key) ?? null, w).row);
  }
  return out;
}

/**
 * Net revenue of an order (the read model's net_amount and the recompute's amount): gross minus
 * refunds, 0 when cancelled.
 */
export function netAmount(row: Pick<OrderRow, 'orderAmount' | 'refundedAmount' | 'cancelledAt'>): number {
  return row.cancelledAt === null ? round4(row.orderAmount - row.refundedAmount) : 0;
}
