import { summaryColumns } from './summary.js';
import type { CustomerSummary, SummaryColumns } from './summary.js';
import type { RfmGroups } from './rfm-groups.js';
import { median } from './special-functions.js';

/**
 * Heuristic purchase model for accounts too small to fit BG/NBD. It is BG/NBD's algebra with the
 * population prior replaced by the customer's own history:
 * - purchase rate while alive: λ ~ Gamma(k, k·g), mean 1/g, where g is the customer's mean
 *   inter-purchase gap t_x/x and k = x the number of observed gaps (so k·g = t_x); with a single
 *   purchase, g is the account's median gap and k = 1 (one pseudo-gap of typical length);
 * - dropout probability after a purchase: p̂ = 1/(x+3), Laplace's rule of succession on the x+1
 *   purchases ("still buying" x+1 times out of x+1 → P(still buying) = (x+2)/(x+3)).
 */
export interface HeuristicCustomer {
  /** g: expected time between purchases. */
  gap: number;
  /** k: shape of the rate posterior (number of observed gaps, at least 1). */
  shape: number;
  /** p̂ = 1/(x+3). */
  dropout: number;
}

/**
 * The account's typical gap: the median of the repeat customers' mean inter-purchase gaps. With no repeat
 * customer at all, nobody has come back within their observed time, so the typical gap is at least the
 * typical observed time: the median T is used (at least `minimum`, e.g. one day in the model's unit).
 */
export function accountMedianGap(summaries: readonly CustomerSummary[], minimum: number): number {
  return accountMedianGapOfColumns(summaryColumns(summaries), minimum);
}

/** {@link accountMedianGap} of summaries held as columns. */
export function accountMedianGapOfColumns(columns: SummaryColumns, minimum: number): number {
  const { frequency, recency, T } = columns;
  const gaps: number[] = [];
  for (let i = 0; i < frequency.length; i++) {
    const x = frequency[i] as number;
    if (x > 0) gaps.push((recency[i] as number) / x);
  }
  const g = gaps.length > 0 ? median(gaps) : median(Array.from(T));
  return Number.isFinite(g) ? Math.max(g, minimum) : minimum;
}

/**
 * {@link accountMedianGap} of customers grouped by (x, t_x, T) with weights (see `groupRfm`): the same
 * median, since a median reads the sorted values, whatever their grouping.
 */
export function accountMedianGapOfGroups(
  groups: Pick<RfmGroups, 'frequency' | 'recency' | 'T' | 'weight'>,
  minimum: number,
): number {
  const gaps: number[] = [];
  const gapWeights: number[] = [];
  for (let i = 0; i < groups.frequency.length; i++) {
    const x = groups.frequency[i] as number;
    if (x > 0) {
      gaps.push((groups.recency[i] as number) / x);
      gapWeights.push(groups.weight[i] as number);
    }
  }
  const g =
    gaps.length > 0
      ? weightedMedian(gaps, gapWeights)
      : weightedMedian(Array.from(groups.T), Array.from(groups.weight));
  return Number.isFinite(g) ? Math.max(g, minimum) : minimum;
}

/** The median of values repeated weight[i] times (integer weights), as `median` of the repeated list. */
function weightedMedian(values: readonly number[], weights: readonly number[]): number {
  const order = values.map((_, i) => i).sort((a, b) => (values[a] as number) - (values[b] as number));
  let n = 0;
  for (const w of weights) n += w;
  if (n === 0) return NaN;
  // The elements at (0-based) positions ⌊(n−1)/2⌋ and ⌊n/2⌋ of the repeated, sorted list.
  const lo = Math.floor((n - 1) / 2);
  const hi = Math.floor(n / 2);
  let seen = 0;
  let low = NaN;
  for (const i of order) {
    seen += weights[i] as number;
    if (Number.isNaN(low) && seen > lo) low = values[i] as number;
    if (seen > hi) return lo === hi ? low : (low + (values[i] as number)) / 2;
  }
  return low;
}

/** Heuristic model of one customer (see {@link HeuristicCustomer}). */
export function heuristicCustomer(
  summary: Pick<CustomerSummary, 'frequency' | 'recency'>,
  accountGap: number,
): HeuristicCustomer {
  const x = summary.frequency;
  const gap = x > 0 ? summary.recency / x : accountGap;
  return { gap, shape: Math.max(x, 1), dropout: 1 / (x + 3) };
}

/**
 * Heuristic P(alive) after a silence of `elapsed` (= T − t_x) since the last purchase. An alive customer
 * stays silent that long with probability S = (k·g/(k·g + s))^k (the Gamma-averaged e^(−λs)); Bayes with
 * prior odds (1−p̂)/p̂ = x+2 gives P(alive) = 1 / (1 + S⁻¹/(x+2)).
 */
export function heuristicProbabilityAlive(model: HeuristicCustomer, elapsed: number): number {
  const { gap, shape: k, dropout } = model;
  const logInvSilence = k * Math.log1p(elapsed / (k * gap));
  return 1 / (1 + Math.exp(logInvSilence) * (dropout / (1 - dropout)));
}

/**
 * Heuristic expected purchases in the next t: P(alive) · E[(1 − e^(−λp̂t))/p̂] with the rate posterior
 * updated by the silence, λ ~ Gamma(k, k·g + s): P(alive) · (1 − ((kg+s)/(kg+s+p̂t))^k)/p̂.
 */
export function heuristicExpectedPurchases(model: HeuristicCustomer, elapsed: number, t: number): number {
  if (t <= 0) return 0;
  const { gap, shape: k, dropout: p } = model;
  const exposure = k * gap + elapsed;
  const alive = -Math.expm1(-k * Math.log1p((p * t) / exposure)) / p;
  return heuristicProbabilityAlive(model, elapsed) * alive;
}

/**
 * Heuristic median waiting time to the next purchase: u with P(alive)·(1 − ((kg+s)/(kg+s+u))^k) = ½,
 * i.e. u = (kg+s)·((1 − 1/(2·P(alive)))^(−1/k) − 1); null when P(alive) ≤ ½.
 */
export function heuristicMedianTimeToNextPurchase(model: HeuristicCustomer, elapsed: number): number | null {
  const pAlive = heuristicProbabilityAlive(model, elapsed);
  if (!(pAlive > 0.5)) return null;
  return (model.shape * model.gap + elapsed) * Math.expm1(-Math.log1p(-1 / (2 * pAlive)) / model.shape);
}
