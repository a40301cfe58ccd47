/**
 * A studentised permutation test of "treated spend more than the holdout". The holdout is assigned by
 * a hash that is independent of spend, so under no effect every split of the pooled customers into
 * groups of these sizes was equally likely: the p-value from re-splitting is exact at any sample size
 * and any skew (the t tables are not, with revenue). Welch's t is the statistic, so the test also stays
 * valid for equal means with unequal variances (Janssen 1997; Chung & Romano 2013).
 */
import { mulberry32 } from './prng.js';

/** Options of {@link permutationPValueGreater}. */
export interface PermutationOptions {
  /** Re-splits at most (default 999). */
  readonly permutations?: number;
  /**
   * Stop as soon as this many re-splits reach the observed statistic (Besag & Clifford 1991): the
   * p-value is then at least stopAfter/(resplits), so a level-`alpha/2` decision is already "no".
   * Default 25 (with 999 re-splits, billing needs at most 24).
   */
  readonly stopAfter?: number;
  /**
   * Seed of the re-splits. Default: derived from the data, so the same data always give the same
   * p-value while different data get independent re-splits (one fixed set of re-splits reused for every
   * report would make all billing decisions share its luck).
   */
  readonly seed?: number;
}

/** Result of {@link permutationPValueGreater}. */
export interface PermutationResult {
  /** One-sided p-value of H0: no effect, against treated > holdout. */
  readonly pValue: number;
  /** Re-splits drawn. */
  readonly resplits: number;
}

/**
 * One-sided studentised permutation p-value: (1 + #{t* ≥ t}) / (1 + B), where t* is Welch's t of a
 * random re-split of the pooled values into groups of the observed sizes; sequential (stops once
 * `stopAfter` re-splits reached t, then p = stopAfter / resplits). O(B · holdout size): each re-split
 * draws the holdout's indices (partial Fisher–Yates) and sums them; the treated sums are the rest.
 *
 * @example
 * permutationPValueGreater(treatedRevenue, holdoutRevenue).pValue < 0.025; // billable
 */
export function permutationPValueGreater(
  treated: ArrayLike<number>,
  holdout: ArrayLike<number>,
  options: PermutationOptions = {},
): PermutationResult {
  const nt = treated.length;
  const nh = holdout.length;
  if (nt < 2 || nh < 2) return { pValue: NaN, resplits: 0 };
  const n = nt + nh;
  const pooled = new Float64Array(n);
  let total = 0;
  for (let i = 0; i < nt; i++) total += treated[i]!;
  for (let i = 0; i < nh; i++) total += holdout[i]!;
  const centre = total / n;
  // Centred values keep sums of squares accurate; the statistic is shift-invariant.
  let total2 = 0;
  for (let i = 0; i < nt; i++) {
    const v = treated[i]! - centre;
    pooled[i] = v;
    total2 += v * v;
  }
  let observedH = 0;
  let observedH2 = 0;
  for (let i = 0; i < nh; i++) {
    const v = holdout[i]! - centre;
    pooled[nt + i] = v;
    total2 += v * v;
    observedH += v;
    observedH2 += v * v;
  }
  const welch = (sh: number, sh2: number): number => {
    const st = -sh; // the centred values sum to 0
    const st2 = total2 - sh2;
    const mt = st / nt;
    const mh = sh / nh;
    const vt = Math.max(0, st2 - nt * mt * mt) / (nt - 1);
    const vh = Math.max(0, sh2 - nh * mh * mh) / (nh - 1);
    const se = Math.sqrt(vt / nt + vh / nh);
    const d = mt - mh;
    return se > 0 ? d / se : d > 0 ? Infinity : d < 0 ? -Infinity : 0;
  };
  const observed = welch(observedH, observedH2);
  // Floating-point sums of the same values in another order differ in the last bits: a re-split that
  // equals the observed one must count as reaching it.
  const threshold = observed - 1e-9 * Math.max(1, Math.abs(observed));
  const b = options.permutations ?? 999;
  const stopAfter = options.stopAfter ?? 25;
  const u = mulberry32(options.seed ?? dataSeed(observedH, total2, n));
  const index = new Int32Array(n);
  for (let i = 0; i < n; i++) index[i] = i;
  let reached = 0;
  for (let k = 1; k <= b; k++) {
    let sh = 0;
    let sh2 = 0;
    for (let i = 0; i < nh; i++) {
      const j = i + Math.floor(u() * (n - i));
      const pick = index[j]!;
      index[j] = index[i]!;
      index[i] = pick;
      const v = pooled[pick]!;
      sh += v;
      sh2 += v * v;
    }
    if (welch(sh, sh2) >= threshold) {
      reached++;
      if (reached >= stopAfter) return { pValue: reached / k, resplits: k };
    }
  }
  return { pValue: (reached + 1) / (b + 1), resplits: b };
}

/** A 32-bit seed from the bits of two sums and the size (FNV-1a over their bytes). */
function dataSeed(a: number, b: number, n: number): number {
  const bytes = new Uint8Array(new Float64Array([a, b, n]).buffer);
  let h = 0x811c9dc5;
  for (const byte of bytes) h = Math.imul(h ^ byte, 0x01000193);
  return h >>> 0;
}
