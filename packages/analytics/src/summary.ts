import { CustomerDays } from './customer-days.js';
import { daysPerUnit, toUtcDay } from './time.js';
import type { Instant, TimeUnit } from './time.js';

/** One order as the analytics see it. */
export interface OrderInput {
  customerId: string;
  /** When the order was placed (Date, ISO-8601 string or epoch ms); bucketed to its UTC calendar day. */
  orderDate: Instant;
  /** Net amount: gross minus refunded. */
  amount: number;
  /** Cancelled orders are ignored (callers may also drop them before calling). */
  cancelled?: boolean;
}

/** Options of {@link summarizeOrders}. */
export interface SummaryOptions {
  /** End of the calibration period; orders on a later UTC day are ignored. T is measured to this day. */
  calibrationEnd: Instant;
  /** Unit of recency, T and gaps (default weeks). */
  timeUnit?: TimeUnit;
}

/**
 * RFM summary of one customer over the calibration period, in the notation of Fader, Hardie & Lee.
 * A transaction is one UTC calendar day with at least one order (same-day orders are summed).
 */
export interface CustomerSummary {
  customerId: string;
  /** x: number of repeat transactions (distinct purchase days minus one). */
  frequency: number;
  /** t_x: time from the first to the last purchase day. */
  recency: number;
  /** T: time from the first purchase day to the calibration end day. */
  T: number;
  /** Mean net amount of the repeat transactions (first excluded); 0 when frequency is 0. */
  monetaryValue: number;
  /** Net revenue of all transactions in the calibration period. */
  totalRevenue: number;
  /** Number of transactions (frequency + 1). */
  transactions: number;
  /** Midnight UTC of the first purchase day. */
  firstPurchaseAt: Date;
  /** Midnight UTC of the last purchase day. */
  lastPurchaseAt: Date;
  /** Mean time between consecutive transactions (recency / frequency); null with a single transaction. */
  meanInterPurchaseTime: number | null;
}

/**
 * The numbers of many {@link CustomerSummary}s that scoring reads, as columns: row i is customer i.
 * A million summaries as objects take a few hundred megabytes; as columns, 48 bytes per customer.
 */
export interface SummaryColumns {
  readonly frequency: Float64Array;
  readonly recency: Float64Array;
  readonly T: Float64Array;
  readonly monetaryValue: Float64Array;
  readonly totalRevenue: Float64Array;
  readonly transactions: Float64Array;
}

/** The columns of `summaries` (see {@link SummaryColumns}). */
export function summaryColumns(summaries: readonly CustomerSummary[]): SummaryColumns {
  const n = summaries.length;
  const columns = {
    frequency: new Float64Array(n),
    recency: new Float64Array(n),
    T: new Float64Array(n),
    monetaryValue: new Float64Array(n),
    totalRevenue: new Float64Array(n),
    transactions: new Float64Array(n),
  };
  for (let i = 0; i < n; i++) {
    const s = summaries[i] as CustomerSummary;
    columns.frequency[i] = s.frequency;
    columns.recency[i] = s.recency;
    columns.T[i] = s.T;
    columns.monetaryValue[i] = s.monetaryValue;
    columns.totalRevenue[i] = s.totalRevenue;
    columns.transactions[i] = s.transactions;
  }
  return columns;
}

/**
 * Summarises orders per customer (customers in order of first counted order): the objects' form of
 * {@link CustomerDays}, the one RFM summary, which the recompute feeds straight from the database.
 * Customers whose orders all fall after the calibration end (or are cancelled) are left out.
 */
export function summarizeOrders(orders: Iterable<OrderInput>, options: SummaryOptions): CustomerSummary[] {
  const endDay = toUtcDay(options.calibrationEnd);
  const acc = new CustomerDays();
  for (const order of orders) {
    if (order.cancelled === true) continue;
    const day = toUtcDay(order.orderDate);
    if (day > endDay) continue;
    acc.add(order.customerId, day, order.amount);
  }
  return acc.summaries(endDay, daysPerUnit(options.timeUnit ?? 'weeks'));
}

/**
 * Summary of a single customer's orders (orders of other customers are ignored); null when no order
 * counts (none on or before the calibration end).
 */
export function summarizeCustomer(
  customerId: string,
  orders: Iterable<OrderInput>,
  options: SummaryOptions,
): CustomerSummary | null {
  const mine = [...orders].filter((o) => o.customerId === customerId);
  return summarizeOrders(mine, options)[0] ?? null;
}
