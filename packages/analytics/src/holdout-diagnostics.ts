import type { HoldoutHistories } from './holdout-split.js';
import { GroupIndex } from './group-index.js';

/** One calibration history (x, t_x, T). */
export interface History {
  x: number;
  tx: number;
  T: number;
}

/** What a fitted purchase model predicts of one history over the next t. */
export interface PurchasePredictor {
  /** E[purchases in (T, T+t]]. */
  expected: (h: History, t: number) => number;
  /** P(no purchase in (T, T+t]). */
  pNoPurchase: (h: History, t: number) => number;
  /** E[X(t)]: purchases in (0, t] of a customer just acquired (the cohort forecast). */
  unconditional: (t: number) => number;
}

/** One bin of the reliability table: customers whose predicted P(no purchase) fell in it. */
export interface ReliabilityBin {
  /** Mean predicted probability of no purchase in the holdout. */
  predicted: number;
  /** Share of those customers who indeed bought nothing in the holdout. */
  observed: number;
  customers: number;
}

/** How a model fitted on the calibration period did on the holdout. */
export interface HoldoutDiagnostics {
  customers: number;
  /** Σ E[x*]: the purchases the model forecast for the holdout. */
  predictedPurchases: number;
  /** Σ x*: the purchases made. */
  actualPurchases: number;
  /** (predicted − actual) / actual; NaN when nothing was bought. */
  aggregateError: number;
  /**
   * The paper's tracking check: the cohort forecast of cumulative repeat purchases by the holdout's
   * end, Σ E[X(T + t*)] from acquisition (no use of each customer's history), against Σ (x + x*), as
   * (forecast − actual) / actual.
   */
  trackingError: number;
  /** Pearson correlation of E[x*] and x* over customers; NaN when either is constant. */
  correlation: number;
  /** Mean over customers of |E[x*] − x*|. */
  meanAbsoluteError: number;
  /** P(no purchase in the holdout) by decile of the prediction, against the observed share. */
  reliability: ReliabilityBin[];
  /** Expected calibration error of the churn probability: Σ (n_bin/N)·|predicted − observed|. */
  calibrationError: number;
}

const BINS = 10;

/**
 * Scores a model's forecasts on the holdout histories (docs/analytics.md, "Model choice on a holdout").
 * Predictions depend on (x, t_x, T) only, so each distinct history is predicted once. The reliability
 * table sorts customers by predicted P(no purchase) and cuts them into 10 bins of equal customer counts
 * (a group of identical histories stays in one bin, the one holding its middle customer).
 */
export function holdoutDiagnostics(model: PurchasePredictor, data: HoldoutHistories): HoldoutDiagnostics {
  const n = data.weight.length;
  const t = data.holdoutLength;
  const expected = new Float64Array(n);
  const quiet = new Float64Array(n);
  // Row i's first row with the same (x, t_x, T): its slot in the index is the row it was first met at.
  const seen = new GroupIndex(3);
  const firstRow = new Int32Array(n);
  for (let i = 0; i < n; i++) {
    const h = { x: data.x[i]!, tx: data.tx[i]!, T: data.T[i]! };
    const before = seen.size;
    const g = seen.add(h.x, h.tx, h.T);
    if (g < before) {
      const at = firstRow[g]!;
      expected[i] = expected[at]!;
      quiet[i] = quiet[at]!;
      continue;
    }
    firstRow[g] = i;
    expected[i] = model.expected(h, t);
    quiet[i] = model.pNoPurchase(h, t);
  }
  let N = 0;
  let sumE = 0;
  let sumA = 0;
  let abs = 0;
  let tracked = 0;
  let cumulative = 0;
  const unconditional = new Map<number, number>();
  for (let i = 0; i < n; i++) {
    const w = data.weight[i]!;
    const end = data.T[i]! + t;
    let u = unconditional.get(end);
    if (u === undefined) unconditional.set(end, (u = model.unconditional(end)));
    tracked += w * u;
    cumulative += w * (data.x[i]! + data.holdoutPurchases[i]!);
    N += w;
    sumE += w * expected[i]!;
    sumA += w * data.holdoutPurchases[i]!;
    abs += w * Math.abs(expected[i]! - data.holdoutPurchases[i]!);
  }
  const meanE = sumE / N;
  const meanA = sumA / N;
  let cov = 0;
  let varE = 0;
  let varA = 0;
  for (let i = 0; i < n; i++) {
    const w = data.weight[i]!;
    const de = expected[i]! - meanE;
    const da = data.holdoutPurchases[i]! - meanA;
    cov += w * de * da;
    varE += w * de * de;
    varA += w * da * da;
  }
  const reliability = reliabilityTable(quiet, data);
  return {
    customers: N,
    predictedPurchases: sumE,
    actualPurchases: sumA,
    aggregateError: sumA > 0 ? (sumE - sumA) / sumA : NaN,
    trackingError: cumulative > 0 ? (tracked - cumulative) / cumulative : NaN,
    correlation: varE > 0 && varA > 0 ? cov / Math.sqrt(varE * varA) : NaN,
    meanAbsoluteError: abs / N,
    reliability,
    calibrationError: expectedCalibrationError(reliability),
  };
}

/** The reliability table of predicted P(no purchase) against the observed share with x* = 0. */
export function reliabilityTable(
  predicted: Float64Array,
  data: Pick<HoldoutHistories, 'weight' | 'holdoutPurchases'>,
): ReliabilityBin[] {
  const n = predicted.length;
  const order = Array.from({ length: n }, (_, i) => i).sort((a, b) => predicted[a]! - predicted[b]!);
  let N = 0;
  for (let i = 0; i < n; i++) N += data.weight[i]!;
  const sums = Array.from({ length: BINS }, () => ({ p: 0, quiet: 0, w: 0 }));
  let before = 0;
  for (const i of order) {
    const w = data.weight[i]!;
    const bin = Math.min(BINS - 1, Math.floor((BINS * (before + w / 2)) / N));
    before += w;
    const s = sums[bin]!;
    s.p += w * predicted[i]!;
    s.quiet += data.holdoutPurchases[i] === 0 ? w : 0;
    s.w += w;
  }
  return sums
    .filter((s) => s.w > 0)
    .map((s) => ({ predicted: s.p / s.w, observed: s.quiet / s.w, customers: s.w }));
}

/** Σ over bins of (customers/N)·|predicted − observed|: 0 for a perfectly calibrated forecast. */
export function expectedCalibrationError(bins: readonly ReliabilityBin[]): number {
  let N = 0;
  let sum = 0;
  for (const b of bins) {
    N += b.customers;
    sum += b.customers * Math.abs(b.predicted - b.observed);
  }
  return N > 0 ? sum / N : NaN;
}
