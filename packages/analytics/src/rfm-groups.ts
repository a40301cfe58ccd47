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
  const index = new Map<string, number>();
  const x: number[] = [];
  const tx: number[] = [];
  const T: number[] = [];
  const w: number[] = [];
  let customers = 0;
  for (const row of rows) {
    validate(row);
    const key = `${row.frequency}|${row.recency}|${row.T}`;
    const at = index.get(key);
    customers++;
    if (at !== undefined) {
      w[at] = (w[at] as number) + 1;
      continue;
    }
    index.set(key, x.length);
    x.push(row.frequency);
    tx.push(row.recency);
    T.push(row.T);
    w.push(1);
  }
  return {
    frequency: Float64Array.from(x),
    recency: Float64Array.from(tx),
    T: Float64Array.from(T),
    weight: Float64Array.from(w),
    customers,
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
