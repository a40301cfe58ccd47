import { utcDayToDate, type CustomerSummary, type SummaryColumns } from '@holdfast/analytics';

const MIN_CAPACITY = 1024;

/**
 * Collects an account's orders (customer, UTC day, net amount) in any order and turns them into
 * per-customer RFM summaries with exactly the semantics of `summarizeOrders` from @holdfast/analytics:
 * same-day orders are one transaction, x = purchase days − 1, t_x and T in `unitDays` units, T measured
 * to the calibration-end day, monetary value = mean of the repeat days (first day excluded).
 *
 * Why not `summarizeOrders` itself: it keeps a Map of days per customer, which for a million customers
 * is millions of small Maps. This keeps three typed arrays (16 bytes per order) and sorts them with a
 * counting sort by customer, so the orders can stream straight from the database in table order.
 * {@link columns} hands the summaries on as typed arrays too (a summary object per customer would be
 * a few hundred megabytes at a million customers); {@link summaries} gives the objects.
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
    this.eachCustomer(endDay, (c, days, amounts) => {
      const n = summaryNumbers(days, amounts, endDay, unitDays);
      out.push({
        customerId: this.ids[c]!,
        ...n,
        firstPurchaseAt: dateOf(days[0]!),
        lastPurchaseAt: dateOf(days[days.length - 1]!),
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
    this.eachCustomer(endDay, (c, days, amounts) => {
      const n = summaryNumbers(days, amounts, endDay, unitDays);
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
   * with its distinct purchase days ascending and each day's summed amount (arrays reused between calls).
   */
  private eachCustomer(
    endDay: number,
    visit: (customer: number, days: readonly number[], amounts: readonly number[]) => void,
  ): void {
    const n = this.size;
    const customers = this.ids.length;
    // Counting sort of the orders by customer: start[c] .. start[c+1] holds customer c's orders.
    const start = new Int32Array(customers + 1);
    for (let i = 0; i < n; i++) start[this.customerOf[i]! + 1]!++;
    for (let c = 0; c < customers; c++) start[c + 1]! += start[c]!;
    const next = start.slice(0, customers);
    const order = new Int32Array(n);
    for (let i = 0; i < n; i++) order[next[this.customerOf[i]!]!++] = i;

    const days: number[] = [];
    const amounts: number[] = [];
    for (let c = 0; c < customers; c++) {
      days.length = 0;
      amounts.length = 0;
      for (let k = start[c]!; k < start[c + 1]!; k++) {
        const i = order[k]!;
        const day = this.dayOf[i]!;
        if (day > endDay) continue;
        insertDay(days, amounts, day, this.amountOf[i]!);
      }
      if (days.length > 0) visit(c, days, amounts);
    }
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

// Keeps `days` sorted and distinct, summing same-day amounts: customers have few purchase days, so an
// insertion step beats a general sort.
function insertDay(days: number[], amounts: number[], day: number, amount: number): void {
  let j = days.length - 1;
  while (j >= 0 && days[j]! > day) j--;
  if (j >= 0 && days[j] === day) {
    amounts[j]! += amount;
    return;
  }
  days.splice(j + 1, 0, day);
  amounts.splice(j + 1, 0, amount);
}

/** The numbers of a summary (summarizeOrders' arithmetic, in the same order of operations). */
function summaryNumbers(
  days: readonly number[],
  amounts: readonly number[],
  endDay: number,
  unitDays: number,
): Pick<CustomerSummary, 'frequency' | 'recency' | 'T' | 'monetaryValue' | 'totalRevenue' | 'transactions'> {
  const first = days[0]!;
  const last = days[days.length - 1]!;
  const frequency = days.length - 1;
  let total = 0;
  for (const a of amounts) total += a;
  return {
    frequency,
    recency: (last - first) / unitDays,
    T: (endDay - first) / unitDays,
    monetaryValue: frequency > 0 ? (total - amounts[0]!) / frequency : 0,
    totalRevenue: total,
    transactions: days.length,
  };
}
