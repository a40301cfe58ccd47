/**
 * A studentised permutation test of "treated spend more than the holdout", and the confidence interval
 * for the lift obtained by inverting it. The holdout is assigned by a hash that is independent of spend,
 * so under no effect every split of the pooled customers into groups of these sizes was equally likely:
 * the p-value from re-splitting is exact at any sample size and any skew (the t tables are not, with
 * revenue). Welch's t is the statistic, so the test also stays valid for equal means with unequal
 * variances (Janssen 1997; Chung & Romano 2013).
 *
 * The interval is {δ : the test of "lift = δ" does not reject}, where "lift = δ" is tested by
 * re-splitting the treated values shifted by −δ together with the holdout (a shift model). Billing and
 * the interval come from the same statistic and the same re-splits, so they never disagree: the
 * interval's lower bound is above 0 exactly when the one-sided test at α/2 rejects "lift ≤ 0".
 */
import { hypergeometricSample } from './hypergeometric-sample.js';
import { mulberry32 } from './prng.js';

/** Options of {@link permutationInterval}. */
export interface PermutationOptions {
  /** Two-sided level: a (1 − alpha) interval, one-sided tests at alpha/2 (default 0.05). */
  readonly alpha?: number;
  /**
   * Re-splits (default 199). The test is exact for any number (p = (1 + #{t* ≥ t})/(1 + B), so with
   * (1 + B)·alpha/2 a whole number the level is met with equality); more re-splits only make the decision
   * and the bounds less noisy, at a cost proportional to B. 199 was chosen by simulation against 999
   * (docs/analytics.md §8): the same false billing and coverage, slightly less power. B ≥ 2/alpha − 1 is
   * needed for finite bounds.
   */
  readonly permutations?: number;
  /**
   * Seed of the re-splits. Default: derived from the holdout's values and the group sizes, so the same
   * data always give the same answer while different reports get independent re-splits (one fixed set
   * reused for every report would make all billing decisions share its luck). The treated values are
   * left out of the seed so that shifting them shifts the interval exactly.
   */
  readonly seed?: number;
}

/** Result of {@link permutationInterval}. */
export interface PermutationIntervalResult {
  /** (1 − alpha) interval of the lift (difference in means); it always contains the point estimate. */
  readonly lower: number;
  readonly upper: number;
  /** One-sided p-value of "lift ≤ 0" against lift > 0: what billing uses. */
  readonly pValueGreater: number;
  /** One-sided p-value of "lift ≥ 0" against lift < 0. */
  readonly pValueLess: number;
  /** Two-sided p-value of "lift = 0": min(1, 2·min(pValueGreater, pValueLess)). */
  readonly pValue: number;
  /** Re-splits drawn. */
  readonly resplits: number;
}

/**
 * The re-splits, reduced to what Welch's t of each needs at any shift. With the treated values centred
 * on their mean (x) and the holdout's on theirs (y), testing lift = δ re-splits x + Δ and y, Δ = D − δ
 * (D the observed difference; Welch's t ignores a common shift). For re-split k, the difference of
 * means is c0 + c1·Δ and the squared standard error q0 + q1·Δ + q2·Δ²: both sides are sums over the
 * re-split's members, split by where they came from. So the re-splits are drawn once, in
 * O(B · holdout size), and each shift is then tested in O(B).
 */
interface Resplits {
  readonly c0: Float64Array;
  readonly c1: Float64Array;
  readonly q0: Float64Array;
  readonly q1: Float64Array;
  readonly q2: Float64Array;
}

/**
 * Two-sided (1 − alpha) interval for the lift by inverting the studentised permutation test, with the
 * one-sided p-values at lift = 0. Each bound is found by bisection between a shift the one-sided test at
 * alpha/2 rejects (p ≤ alpha/2) and one it does not, starting from 0, so "lower > 0" ⇔ pValueGreater ≤
 * alpha/2 and lift > 0 (and "upper < 0" ⇔ pValueLess ≤ alpha/2 and lift < 0). The interval is then
 * widened to the point estimate if it missed it (possible only with a handful of customers in a group). NaN with fewer than two values in a group;
 * with both groups constant the interval is the observed difference.
 *
 * @example
 * const ci = permutationInterval(treatedRevenue, holdoutRevenue);
 * const billable = ci.lower > 0; // the one-sided 2.5% test says lift > 0
 */
export function permutationInterval(
  treated: ArrayLike<number>,
  holdout: ArrayLike<number>,
  options: PermutationOptions = {},
): PermutationIntervalResult {
  const nt = treated.length;
  const nh = holdout.length;
  if (nt < 2 || nh < 2) {
    return { lower: NaN, upper: NaN, pValueGreater: NaN, pValueLess: NaN, pValue: NaN, resplits: 0 };
  }
  const alpha = options.alpha ?? 0.05;
  const b = options.permutations ?? 199;
  let sumT = 0;
  let sumH = 0;
  for (let i = 0; i < nt; i++) sumT += treated[i]!;
  for (let i = 0; i < nh; i++) sumH += holdout[i]!;
  const meanT = sumT / nt;
  const meanH = sumH / nh;
  const d = meanT - meanH;
  // Centred per group: sums of squares stay accurate, and a shift of the treated values changes nothing
  // below but d.
  let sx = 0;
  let qx = 0;
  let sy = 0;
  let qy = 0;
  for (let i = 0; i < nt; i++) {
    const v = treated[i]! - meanT;
    sx += v;
    qx += v * v;
  }
  for (let i = 0; i < nh; i++) {
    const v = holdout[i]! - meanH;
    sy += v;
    qy += v * v;
  }
  const se = Math.sqrt((qx - (sx * sx) / nt) / ((nt - 1) * nt) + (qy - (sy * sy) / nh) / ((nh - 1) * nh));
  if (!(se > 0)) {
    // Both groups constant: every re-split of the values tells the same, the difference is certain.
    const pValueGreater = d > 0 ? 0 : 1;
    const pValueLess = d < 0 ? 0 : 1;
    return { lower: d, upper: d, pValueGreater, pValueLess, pValue: d === 0 ? 1 : 0, resplits: 0 };
  }
  const offset = sx / nt - sy / nh; // ≈ 0: the rounding of the centring
  const tObserved = (delta: number): number => {
    const diff = delta + offset;
    return diff / se;
  };

  const r = drawResplits(treated, holdout, meanT, meanH, b, options.seed ?? holdoutSeed(sumH, qy, nt, nh));
  // Counts of re-splits at least as extreme as the observation at shift Δ, one side each. Sums of the
  // same values in another order differ in the last bits: a re-split equal to the observed one counts.
  const countGreater = (delta: number): number => {
    const t = tObserved(delta);
    const threshold = t - 1e-9 * Math.max(1, Math.abs(t));
    let c = 0;
    for (let k = 0; k < b; k++) if (resplitT(r, k, delta) >= threshold) c++;
    return c;
  };
  const countLess = (delta: number): number => {
    const t = tObserved(delta);
    const threshold = t + 1e-9 * Math.max(1, Math.abs(t));
    let c = 0;
    for (let k = 0; k < b; k++) if (resplitT(r, k, delta) <= threshold) c++;
    return c;
  };
  // Rejected when p = (1 + count)/(1 + B) ≤ alpha/2: P(p ≤ alpha/2) = alpha/2 exactly under no effect when
  // (1 + B)·alpha/2 is whole (a strict < would bill at (1 + B)·alpha/2 − 1 of 1 + B: 2.0% with B = 199).
  // In terms of the lift δ: Δ = d − δ.
  const limit = Math.floor((alpha / 2) * (b + 1) + 1e-9) - 1;
  const rejectsBelow = (lift: number): boolean => countGreater(d - lift) <= limit;
  const rejectsAbove = (lift: number): boolean => countLess(d - lift) <= limit;
  const lower = Math.min(d, bound(rejectsBelow, -1, d, se));
  const upper = Math.max(d, bound(rejectsAbove, 1, d, se));
  const pValueGreater = (1 + countGreater(d)) / (1 + b);
  const pValueLess = (1 + countLess(d)) / (1 + b);
  return {
    lower,
    upper,
    pValueGreater,
    pValueLess,
    pValue: Math.min(1, 2 * Math.min(pValueGreater, pValueLess)),
    resplits: b,
  };
}

/** Welch's t of re-split k at shift Δ. */
function resplitT(r: Resplits, k: number, delta: number): number {
  const diff = r.c0[k]! + r.c1[k]! * delta;
  const v = r.q0[k]! + delta * (r.q1[k]! + delta * r.q2[k]!);
  return v > 0 ? diff / Math.sqrt(v) : diff > 0 ? Infinity : diff < 0 ? -Infinity : 0;
}

/**
 * One bound of the interval: the point where `rejects` (true far out in direction `outward`: −1 for the
 * lower bound, +1 for the upper) switches. The bracket always has 0 at one end (or inside, when both ends
 * are on one side of 0 by the search), so the bound is on the same side of 0 as the test's decision at 0.
 * ±Infinity if nothing is rejected however far out (too few re-splits for alpha).
 */
function bound(rejects: (lift: number) => boolean, outward: -1 | 1, d: number, scale: number): number {
  let inner: number; // not rejected
  let outer: number; // rejected
  if (rejects(0)) {
    outer = 0;
    const base = outward < 0 ? Math.max(d, 0) : Math.min(d, 0);
    let found = base !== 0 && !rejects(base) ? base : NaN;
    for (let k = 0; k < 64 && Number.isNaN(found); k++) {
      const c = base - outward * scale * 2 ** k;
      if (!rejects(c)) found = c;
    }
    if (Number.isNaN(found)) return d; // every shift rejected: the caller widens to the estimate
    inner = found;
  } else {
    inner = 0;
    const base = outward < 0 ? Math.min(d, 0) : Math.max(d, 0);
    let found = base !== 0 && rejects(base) ? base : NaN;
    for (let k = 0; k < 64 && Number.isNaN(found); k++) {
      const c = base + outward * scale * 2 ** k;
      if (rejects(c)) found = c;
    }
    if (Number.isNaN(found)) return outward * Infinity;
    outer = found;
  }
  const tolerance = 1e-10 * Math.max(Math.abs(d), scale);
  for (let i = 0; i < 200 && Math.abs(outer - inner) > tolerance; i++) {
    const mid = (inner + outer) / 2;
    if (rejects(mid)) outer = mid;
    else inner = mid;
  }
  return (inner + outer) / 2;
}

/**
 * Draws B re-splits (a uniformly random new holdout of nh of the n pooled customers; the new treated
 * group is the rest) and keeps, per re-split, the coefficients of its mean difference and squared
 * standard error as functions of the shift Δ applied to the treated-origin values.
 *
 * Customers who spent exactly 0 (most of them, in a month) are not drawn one by one: how many of each
 * origin's zeros join the new holdout is hypergeometric (a uniform subset has multivariate hypergeometric
 * counts per category and is uniform within each), and only the spenders are drawn by a partial
 * Fisher–Yates. Same distribution of re-splits, a fraction of the random memory accesses.
 */
function drawResplits(
  treated: ArrayLike<number>,
  holdout: ArrayLike<number>,
  meanT: number,
  meanH: number,
  b: number,
  seed: number,
): Resplits {
  const nt = treated.length;
  const nh = holdout.length;
  const n = nt + nh;
  // Spenders, centred per group; treated-origin ones first.
  const spenders = new Float64Array(n);
  let ns = 0;
  let zt = 0;
  let zh = 0;
  for (let i = 0; i < nt; i++) {
    if (treated[i] === 0) zt++;
    else spenders[ns++] = treated[i]! - meanT;
  }
  const nst = ns; // treated-origin spenders: indices below nst
  for (let i = 0; i < nh; i++) {
    if (holdout[i] === 0) zh++;
    else spenders[ns++] = holdout[i]! - meanH;
  }
  const zeroT = -meanT; // the centred value of a treated zero
  const zeroH = -meanH;
  let sAll = zt * zeroT + zh * zeroH;
  let qAll = zt * zeroT * zeroT + zh * zeroH * zeroH;
  let sx = zt * zeroT;
  for (let i = 0; i < ns; i++) {
    const v = spenders[i]!;
    sAll += v;
    qAll += v * v;
    if (i < nst) sx += v;
  }
  const r: Resplits = {
    c0: new Float64Array(b),
    c1: new Float64Array(b),
    q0: new Float64Array(b),
    q1: new Float64Array(b),
    q2: new Float64Array(b),
  };
  const u = mulberry32(seed);
  // (value, 1 if treated-origin else 0) pairs, shuffled in place: one random memory access per pick.
  const pairs = new Float64Array(2 * ns);
  for (let i = 0; i < ns; i++) {
    pairs[2 * i] = spenders[i]!;
    pairs[2 * i + 1] = i < nst ? 1 : 0;
  }
  const fh = 1 / ((nh - 1) * nh);
  const ft = 1 / ((nt - 1) * nt);
  for (let k = 0; k < b; k++) {
    const kt = hypergeometricSample(u, n, zt, nh); // treated zeros in the new holdout
    const kh = hypergeometricSample(u, n - zt, zh, nh - kt); // holdout zeros
    const picks = nh - kt - kh; // spenders
    let m = kt; // treated-origin members of the new holdout
    let a1 = kt * zeroT; // their sum
    let sh = 0; // the new holdout's sum and sum of squares at Δ = 0
    let qh = 0;
    for (let i = 0; i < picks; i++) {
      const j = 2 * (i + Math.floor(u() * (ns - i)));
      const v = pairs[j]!;
      const treatedOrigin = pairs[j + 1]!;
      pairs[j] = pairs[2 * i]!;
      pairs[j + 1] = pairs[2 * i + 1]!;
      pairs[2 * i] = v;
      pairs[2 * i + 1] = treatedOrigin;
      sh += v;
      qh += v * v;
      m += treatedOrigin;
      a1 += treatedOrigin * v;
    }
    sh += kt * zeroT + kh * zeroH;
    qh += kt * zeroT * zeroT + kh * zeroH * zeroH;
    // New holdout at Δ: sum sh + mΔ, squares qh + 2a1Δ + mΔ². New treated: the rest, with nt − m
    // treated-origin members: sum st + (nt − m)Δ, squares qt + 2(sx − a1)Δ + (nt − m)Δ².
    const st = sAll - sh;
    const qt = qAll - qh;
    const mt = nt - m;
    r.c0[k] = st / nt - sh / nh;
    r.c1[k] = mt / nt - m / nh;
    // (n−1)·variance = squares − sum²/n, expanded in Δ.
    r.q0[k] = (qh - (sh * sh) / nh) * fh + (qt - (st * st) / nt) * ft;
    r.q1[k] = 2 * (a1 - (sh * m) / nh) * fh + 2 * (sx - a1 - (st * mt) / nt) * ft;
    r.q2[k] = (m - (m * m) / nh) * fh + (mt - (mt * mt) / nt) * ft;
  }
  return r;
}

/** A 32-bit seed from the holdout's sum and centred sum of squares and the sizes (FNV-1a over their bytes). */
function holdoutSeed(sum: number, squares: number, nt: number, nh: number): number {
  const bytes = new Uint8Array(new Float64Array([sum, squares, nt, nh]).buffer);
  let h = 0x811c9dc5;
  for (const byte of bytes) h = Math.imul(h ^ byte, 0x01000193);
  return h >>> 0;
}
