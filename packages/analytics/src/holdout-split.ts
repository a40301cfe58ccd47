import type { CustomerDays } from './customer-days.js';
import { GroupIndex } from './group-index.js';

/**
 * Customers of a calibration period and what they did next: row i has the calibration history
 * (x, t_x, T) and x* purchases (purchase days) in the holdout that followed; `weight` customers share
 * the row (identical quadruplets are grouped, which also makes the diagnostics cheap).
 */
export interface HoldoutHistories {
  readonly x: Float64Array;
  readonly tx: Float64Array;
  readonly T: Float64Array;
  readonly holdoutPurchases: Float64Array;
  readonly weight: Float64Array;
  /** Σ weight: customers acquired by the calibration end. */
  readonly customers: number;
  /** Length of the holdout, in the histories' time unit. */
  readonly holdoutLength: number;
}

/**
 * Splits an account's orders at `calibrationEndDay`: every customer with an order on or before it gets
 * its calibration summary (x, t_x, T to that day) and the purchase days it added up to `endDay`
 * (x* = transactions by endDay − transactions by calibrationEndDay). Customers acquired in the holdout
 * are left out, as in the paper's cohort design. `unitDays` is the time unit in days.
 */
export function splitCalibrationHoldout(
  orders: CustomerDays,
  calibrationEndDay: number,
  endDay: number,
  unitDays: number,
): HoldoutHistories {
  if (!(endDay > calibrationEndDay)) throw new RangeError('the holdout must end after the calibration');
  const cal = orders.columns(calibrationEndDay, unitDays);
  const full = orders.columns(endDay, unitDays);
  // Transactions by endDay, by customer number.
  const after = new Float64Array(orders.customers);
  for (let i = 0; i < full.customer.length; i++) after[full.customer[i]!] = full.columns.transactions[i]!;
  // One reused row: groupHoldout copies what it keeps, so no object per customer is held.
  function* rows(): Generator<{ x: number; tx: number; T: number; xStar: number }> {
    const row = { x: 0, tx: 0, T: 0, xStar: 0 };
    for (let i = 0; i < cal.customer.length; i++) {
      row.x = cal.columns.frequency[i]!;
      row.tx = cal.columns.recency[i]!;
      row.T = cal.columns.T[i]!;
      row.xStar = after[cal.customer[i]!]! - cal.columns.transactions[i]!;
      yield row;
    }
  }
  return groupHoldout(rows(), (endDay - calibrationEndDay) / unitDays);
}

/** Groups (x, t_x, T, x*) rows into {@link HoldoutHistories}. */
export function groupHoldout(
  rows: Iterable<{ x: number; tx: number; T: number; xStar: number }>,
  holdoutLength: number,
): HoldoutHistories {
  const groups = new HoldoutGroups();
  for (const row of rows) groups.add(row.x, row.tx, row.T, row.xStar);
  return groups.histories(holdoutLength);
}

/**
 * {@link HoldoutHistories} gathered one customer at a time (a streamed recompute adds each customer as
 * it is summarised): identical (x, t_x, T, x*) share a row, so memory grows with the distinct
 * quadruplets, not the customers.
 */
export class HoldoutGroups {
  /** (x, t_x, T, x*): 48 bytes a group ({@link GroupIndex}). */
  private readonly groups = new GroupIndex(4, 1 << 16);

  /** Customers added. */
  get customers(): number {
    return this.groups.weightTotal;
  }

  /** Adds one customer's calibration history (x, t_x, T) and holdout purchases x*. */
  add(x: number, tx: number, T: number, xStar: number): void {
    if (!(Number.isInteger(xStar) && xStar >= 0)) throw new RangeError(`Invalid holdout count ${xStar}`);
    this.groups.add(x, tx, T, xStar);
  }

  /** The histories gathered, for a holdout of `holdoutLength` (in the histories' time unit). */
  histories(holdoutLength: number): HoldoutHistories {
    return {
      x: this.groups.column(0),
      tx: this.groups.column(1),
      T: this.groups.column(2),
      holdoutPurchases: this.groups.column(3),
      weight: this.groups.weights(),
      customers: this.customers,
      holdoutLength,
    };
  }
}

/** The longest holdout the model check uses: 52 weeks. */
export const MAX_HOLDOUT_DAYS = 364;
/** The shortest: 4 weeks (a shorter one says too little about either model). */
export const MIN_HOLDOUT_DAYS = 28;

/**
 * How many of the most recent days the model check holds out, given the days from the account's first
 * order to the as-of day: half of them in whole weeks (the paper's 39/39-week design on CDNOW's 78),
 * at most {@link MAX_HOLDOUT_DAYS}; null for a history shorter than twice {@link MIN_HOLDOUT_DAYS}
 * (no check: too young).
 */
export function holdoutDays(historyDays: number): number | null {
  if (!(historyDays >= 2 * MIN_HOLDOUT_DAYS)) return null;
  return Math.min(MAX_HOLDOUT_DAYS, Math.round(historyDays / 14) * 7);
}
