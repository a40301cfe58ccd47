import type { CustomerSummary, SummaryColumns } from './summary.js';
import { zeroSummaryNumbers, type SummaryNumbers } from './summary-numbers.js';
import { utcDayToDate } from './time.js';

const MIN_CAPACITY = 1024;

/**
 * Net revenue of an order for the RFM summary: gross minus refunds, floored at 0 (a refund larger
 * than the order cannot make revenue negative). Cancelled orders are not counted at all.
 *
 * @example
 * netOrderAmount(100, 120); // 0
 */
export function netOrderAmount(gross: number, refunded: number): number {
  return Math.max(0, gross - refunded);
}

/**
 * The RFM summary of an account: collects orders (customer, UTC day, net amount) in any order and
 * turns them into per-customer summaries. Same-day orders are one transaction, x = purchase days − 1,
 * t_x and T in `unitDays` units, T measured to the calibration-end day, monetary value = mean of the
 * repeat days (first day excluded). `summarizeOrders` is this over order objects.
 *
 * Linear in orders whatever their spread over customers: three typed arrays (16 bytes per order),
 * then two stable counting passes (by day, then by customer) put every customer's orders in day
 * order in O(orders + customers + days spanned), with no per-customer sort or insertion.
 * {@link columns} hands the summaries on as typed arrays (a summary object per customer would be a few
 * hundred megabytes at a million customers); {@link summaries} gives the objects.
 *
 * @example
 * const acc = new CustomerDays();
 * acc.add('c1', 20_000, 10); acc.add('c1', 20_007, 5);
 * acc.summaries(20_010, 7)[0]; // { frequency: 1, recency: 1, T: 10/7, monetaryValue: 5, ... }
 */
export class CustomerDays {
  private readonly index = new Map<string, number>();
  private readonly ids: string[] = [];
  private customerOf = new Int32Array(MIN_CAPACITY);
  private dayOf = new Int32Array(MIN_CAPACITY);
  private amountOf = new Float64Array(MIN_CAPACITY);
  private size = 0;

  /** Number of orders added. */
  get orders(): number {
    return this.size;
  }

  /** Number of distinct customers seen. */
  get customers(): number {
    return this.ids.length;
  }

  /** The customer numbered `c` (customers are numbered 0, 1, … in order of first appearance). */
  id(c: number): string {
    return this.ids[c]!;
  }

  /** The number of a customer seen before, else undefined. */
  numberOf(customerId: string): number | undefined {
    return this.index.get(customerId);
  }

  /**
   * Adds one order: its customer, its UTC day (days since 1970-01-01) and its net amount. Returns true
   * when the customer is new.
   */
  add(customerId: string, day: number, amount: number): boolean {
    if (!Number.isFinite(amount)) throw new RangeError(`Invalid amount for ${customerId}`);
    if (!Number.isInteger(day)) throw new RangeError(`Invalid day for ${customerId}`);
    let c = this.index.get(customerId);
    const isNew = c === undefined;
    if (c === undefined) {
      c = this.ids.length;
      this.index.set(customerId, c);
      this.ids.push(customerId);
    }
    if (this.size === this.customerOf.length) this.grow();
    this.customerOf[this.size] = c;
    this.dayOf[this.size] = day;
    this.amountOf[this.size] = amount;
    this.size++;
    return isNew;
  }

  /**
   * One summary per customer with an order on or before `endDay`, in order of first appearance.
   * `unitDays` is the model's time unit in days (7 for weeks).
   */
  summaries(endDay: number, unitDays: number): CustomerSummary[] {
    const out: CustomerSummary[] = [];
    // Purchase days repeat across customers: one Date per day instead of two per customer.
    const dates = new Map<number, Date>();
    const dateOf = (day: number): Date => {
      let d = dates.get(day);
      if (d === undefined) dates.set(day, (d = utcDayToDate(day)));
      return d;
    };
    this.eachCustomer(endDay, unitDays, (c, n, first, last) => {
      out.push({
        customerId: this.ids[c]!,
        ...n,
        firstPurchaseAt: dateOf(first),
        lastPurchaseAt: dateOf(last),
        meanInterPurchaseTime: n.frequency > 0 ? n.recency / n.frequency : null,
      });
    });
    return out;
  }

  /**
   * The same summaries as {@link summaries}, as columns: row i summarises customer `customer[i]` (a
   * customer number, see {@link id}).
   */
  columns(endDay: number, unitDays: number): { columns: SummaryColumns; customer: Int32Array } {
    const capacity = this.ids.length;
    const frequency = new Float64Array(capacity);
    const recency = new Float64Array(capacity);
    const T = new Float64Array(capacity);
    const monetaryValue = new Float64Array(capacity);
    const totalRevenue = new Float64Array(capacity);
    const transactions = new Float64Array(capacity);
    const customer = new Int32Array(capacity);
    let rows = 0;
    this.eachCustomer(endDay, unitDays, (c, n) => {
      frequency[rows] = n.frequency;
      recency[rows] = n.recency;
      T[rows] = n.T;
      monetaryValue[rows] = n.monetaryValue;
      totalRevenue[rows] = n.totalRevenue;
      transactions[rows] = n.transactions;
      customer[rows++] = c;
    });
    return {
      columns: {
        frequency: frequency.subarray(0, rows),
        recency: recency.subarray(0, rows),
        T: T.subarray(0, rows),
        monetaryValue: monetaryValue.subarray(0, rows),
        totalRevenue: totalRevenue.subarray(0, rows),
        transactions: transactions.subarray(0, rows),
      },
      customer: customer.subarray(0, rows),
    };
  }

  /**
   * Calls `visit` for every customer with an order on or before `endDay`, in order of first appearance,
   * with the numbers of its summary and its first and last purchase days (one object, reused).
   */
  private eachCustomer(
    endDay: number,
    unitDays: number,
    visit: (customer: number, numbers: SummaryNumbers, first: number, last: number) => void,
  ): void {
    const order = this.byCustomerThenDay(endDay);
    const numbers = zeroSummaryNumbers();
    let k = 0;
    const n = order.length;
    // `order` runs customer by customer, each one's orders by day: one pass folds each run.
    while (k < n) {
      const c = this.customerOf[order[k]!]!;
      const first = this.dayOf[order[k]!]!;
      let day = first;
      let days = 1;
      let firstAmount = 0;
      let total = 0;
      for (; k < n && this.customerOf[order[k]!] === c; k++) {
        const i = order[k]!;
        const d = this.dayOf[i]!;
        if (d !== day) {
          day = d;
          days++;
        }
        if (d === first) firstAmount += this.amountOf[i]!;
        total += this.amountOf[i]!;
      }
      const frequency = days - 1;
      numbers.frequency = frequency;
      numbers.recency = (day - first) / unitDays;
      numbers.T = (endDay - first) / unitDays;
      numbers.monetaryValue = frequency > 0 ? (total - firstAmount) / frequency : 0;
      numbers.totalRevenue = total;
      numbers.transactions = days;
      visit(c, numbers, first, day);
    }
  }

  /**
   * The indexes of the orders on or before `endDay`, sorted by customer number, then by day (then
   * as added): a stable counting sort by day (two 16-bit passes over the day offset, so a wide span of
   * dates costs no more than a narrow one), then a stable one by customer.
   */
  private byCustomerThenDay(endDay: number): Int32Array {
    let count = 0;
    let minDay = Infinity;
    for (let i = 0; i < this.size; i++) {
      const d = this.dayOf[i]!;
      if (d > endDay) continue;
      count++;
      if (d < minDay) minDay = d;
    }
    let order = new Int32Array(count);
    for (let i = 0, k = 0; i < this.size; i++) if (this.dayOf[i]! <= endDay) order[k++] = i;
    let scratch = new Int32Array(count);
    const offset = (i: number) => this.dayOf[i]! - minDay;
    for (const shift of [0, 16]) {
      if (shift === 16 && count > 0 && endDay - minDay < 65_536) break;
      countingPass(order, scratch, 65_536, (i) => (offset(i) >>> shift) & 0xffff);
      [order, scratch] = [scratch, order];
    }
    countingPass(order, scratch, this.ids.length, (i) => this.customerOf[i]!);
    return scratch;
  }

  private grow(): void {
    const capacity = this.customerOf.length * 2;
    const customerOf = new Int32Array(capacity);
    const dayOf = new Int32Array(capacity);
    const amountOf = new Float64Array(capacity);
    customerOf.set(this.customerOf);
    dayOf.set(this.dayOf);
    amountOf.set(this.amountOf);
    this.customerOf = customerOf;
    this.dayOf = dayOf;
    this.amountOf = amountOf;
  }
}

/** One stable counting-sort pass: `from` sorted by `key` (0 ≤ key < buckets) into `to`. */
function countingPass(from: Int32Array, to: Int32Array, buckets: number, key: (i: number) => number): void {
  const start = new Int32Array(buckets + 1);
  for (let k = 0; k < from.length; k++) start[key(from[k]!) + 1]!++;
  for (let b = 0; b < buckets; b++) start[b + 1]! += start[b]!;
  for (let k = 0; k < from.length; k++) {
    const i = from[k]!;
    to[start[key(i)]!++] = i;
  }
}
