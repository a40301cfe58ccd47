import { GroupIndex } from './group-index.js';

/** The three numbers the BG/NBD model needs for one customer: x, t_x and T (same time unit for all). */
export interface RfmRow {
  /** x: repeat transactions. */
  frequency: number;
  /** t_x: time of the last transaction, measured from the first. */
  recency: number;
  /** T: length of the observation window, measured from the first transaction. */
  T: number;
}

/**
 * Customers with identical (x, t_x, T) collapsed into weighted rows. Their likelihood contributions are
 * identical, so the log-likelihood is Σ weight · ℓ(x, t_x, T); with durations in whole days a million
 * customers collapse to at most a few hundred thousand rows, usually far fewer.
 */
export interface RfmGroups {
  frequency: Float64Array;
  recency: Float64Array;
  T: Float64Array;
  weight: Float64Array;
  /** Number of customers (sum of the weights). */
  customers: number;
}

/** Groups identical (x, t_x, T) rows; validates 0 ≤ t_x ≤ T, integer x ≥ 0, and t_x = 0 when x = 0. */
export function groupRfm(rows: Iterable<RfmRow>): RfmGroups {
  const groups = new GroupIndex(3);
  for (const row of rows) {
    validate(row);
    groups.add(row.frequency, row.recency, row.T);
  }
  return {
    frequency: groups.column(0),
    recency: groups.column(1),
    T: groups.column(2),
    weight: groups.weights(),
    customers: groups.weightTotal,
  };
}

/** True when the value is already grouped (lets the public functions accept both shapes). */
export function isRfmGroups(value: RfmGroups | Iterable<RfmRow>): value is RfmGroups {
  return (value as RfmGroups).weight instanceof Float64Array;
}

function validate(row: RfmRow): void {
  const { frequency: x, recency: tx, T } = row;
  const ok =
    Number.isInteger(x) &&
    x >= 0 &&
    Number.isFinite(tx) &&
    Number.isFinite(T) &&
    tx >= 0 &&
    tx <= T &&
    (x > 0 || tx === 0);
  if (!ok) throw new RangeError(`Invalid RFM row: x=${x}, t_x=${tx}, T=${T}`);
}
