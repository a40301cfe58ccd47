import {
  differenceSkewness,
  hallTransform,
  inverseHallTransform,
  sampleMoments,
  type SampleMoments,
} from './skew-corrected-t.js';
import { permutationInterval } from './permutation-test.js';
import { studentTCdf, studentTQuantile } from './student-t.js';

/** Options of {@link liftStatistics}. */
export interface LiftOptions {
  /**
   * Two-sided level of the interval (default 0.05, a 95% interval). Billing uses the one-sided test at
   * alpha/2 (2.5%), which is the interval's lower bound being above 0.
   */
  alpha?: number;
  /** Power used for the minimum detectable effect (default 0.8). */
  power?: number;
  /**
   * The test billing uses (default `permutation`): `permutation` = studentised permutation test (exact
   * under no effect, see permutation-test.ts) and the interval obtained by inverting it; `hall` = Welch
   * with Hall's skewness correction for both; `welch` = plain Welch (`hall` and `welch` are kept for the
   * comparison in the simulation benchmark).
   */
  test?: LiftTest;
  /** Re-splits of the permutation test (default 199, see permutation-test.ts). */
  permutations?: number;
}

/** The tests {@link liftStatistics} can bill with (chosen by simulation: docs/analytics.md §8). */
export type LiftTest = 'permutation' | 'hall' | 'welch';

/** Result of {@link liftStatistics}; money in the unit of the inputs. */
export interface LiftResult {
  treatedCount: number;
  holdoutCount: number;
  treatedMean: number;
  holdoutMean: number;
  /** Difference in means: revenue per customer, treated − holdout. */
  lift: number;
  standardError: number;
  /** Welch–Satterthwaite degrees of freedom. */
  degreesOfFreedom: number;
  /** Skewness λ of the mean difference that the Hall transformation removes (0: plain Welch). */
  skewness: number;
  /** (1 − alpha) interval of the lift, from `test` (permutation: the inverted permutation test). */
  confidenceInterval: [number, number];
  confidenceLevel: number;
  /** Welch's t = lift / SE (before the skewness correction). */
  tStatistic: number;
  /** Hall-transformed statistic g(t) that is compared with the t table. */
  correctedStatistic: number;
  /** Two-sided p-value of H0: lift = 0, from `test`. */
  pValue: number;
  /** One-sided p-value of H0: lift ≤ 0 against lift > 0, from `test`: what billing uses. */
  pValueGreater: number;
  /** The test `pValueGreater` comes from. */
  test: LiftTest;
  /**
   * The interval excludes 0 (for `hall` and `welch`, equivalently pValue < alpha; for `permutation`, a
   * one-sided p ≤ alpha/2 with the estimate on that side).
   */
  significant: boolean;
  /** Billable: the interval's lower bound is above 0 (the one-sided test at alpha/2 says lift > 0). */
  significantlyPositive: boolean;
  /** lift × treatedCount: revenue the treatment added over the treated group. */
  incrementalRevenue: number;
  /**
   * Smallest true lift detected with probability `power` by the one-sided test at alpha/2 with these
   * group sizes and variances: (t_{1−α/2,ν} + t_{power,ν}) · SE (normal theory, before the skew term).
   */
  minimumDetectableEffect: number;
}

/**
 * Lift of treated over holdout customers from per-customer net revenue. By default (`permutation`) the
 * p-values and the interval come from the studentised permutation test and its inversion
 * (permutation-test.ts), and billing is "the interval's lower bound is above 0". SE, Welch–Satterthwaite
 * ν, Hall's skewness λ and the MDE come from the moments (liftFromMoments). Chosen by simulation
 * (bench/lift.ts, docs/analytics.md §8): Welch and Hall's correction over-bill and under-cover with
 * skewed revenue at holdouts of 500–1,000; the permutation test holds its level at any size and skew.
 * Cost O(B · holdout spenders) for B = 199 re-splits. With fewer than two customers in a group everything
 * statistical is NaN and nothing is significant; with zero variance in both groups the interval
 * collapses to the observed difference.
 *
 * @example
 * const r = liftStatistics(treatedRevenue, holdoutRevenue);
 * const billable = r.significantlyPositive ? r.incrementalRevenue : 0;
 */
export function liftStatistics(
  treated: ArrayLike<number>,
  holdout: ArrayLike<number>,
  options: LiftOptions = {},
): LiftResult {
  const r = liftFromMoments(sampleMoments(treated), sampleMoments(holdout), options);
  if (r.test !== 'permutation' || !(r.standardError > 0)) return r;
  const p = permutationInterval(treated, holdout, {
    alpha: options.alpha ?? 0.05,
    permutations: options.permutations,
  });
  // One statistic, one set of re-splits: billing is "the lower bound is above 0", which is the one-sided
  // test at alpha/2 rejecting lift <= 0 (and the estimate being positive).
  return {
    ...r,
    confidenceInterval: [p.lower, p.upper],
    pValue: p.pValue,
    pValueGreater: p.pValueGreater,
    significant: p.lower > 0 || p.upper < 0,
    significantlyPositive: p.lower > 0,
  };
}

/**
 * {@link liftStatistics} from the groups' moments, without the permutation test (it needs the values):
 * for `test: 'permutation'` the p-values and the interval here are the Hall-corrected ones.
 */
export function liftFromMoments(a: SampleMoments, b: SampleMoments, options: LiftOptions = {}): LiftResult {
  const alpha = options.alpha ?? 0.05;
  const power = options.power ?? 0.8;
  const test = options.test ?? 'permutation';
  const lift = a.mean - b.mean;
  const base = {
    treatedCount: a.n,
    holdoutCount: b.n,
    treatedMean: a.mean,
    holdoutMean: b.mean,
    lift,
    confidenceLevel: 1 - alpha,
    incrementalRevenue: lift * a.n,
    test,
  };
  if (a.n < 2 || b.n < 2) {
    const nan = { standardError: NaN, degreesOfFreedom: NaN, tStatistic: NaN, pValue: NaN };
    return {
      ...base,
      ...nan,
      skewness: NaN,
      correctedStatistic: NaN,
      pValueGreater: NaN,
      confidenceInterval: [NaN, NaN],
      significant: false,
      significantlyPositive: false,
      minimumDetectableEffect: NaN,
    };
  }
  const va = a.variance / a.n;
  const vb = b.variance / b.n;
  const se = Math.sqrt(va + vb);
  if (se === 0) {
    const df = a.n + b.n - 2;
    const pValue = lift === 0 ? 1 : 0;
    const t = lift === 0 ? 0 : Math.sign(lift) * Infinity;
    return {
      ...base,
      standardError: 0,
      degreesOfFreedom: df,
      skewness: 0,
      confidenceInterval: [lift, lift],
      tStatistic: t,
      correctedStatistic: t,
      pValue,
      pValueGreater: lift > 0 ? 0 : 1,
      significant: pValue < alpha,
      significantlyPositive: lift > 0,
      minimumDetectableEffect: 0,
    };
  }
  const df = (va + vb) ** 2 / (va ** 2 / (a.n - 1) + vb ** 2 / (b.n - 1));
  const lambda = test === 'welch' ? 0 : differenceSkewness(a, b);
  const tCrit = studentTQuantile(1 - alpha / 2, df);
  const t = lift / se;
  const g = hallTransform(t, lambda);
  const pValueGreater = 1 - studentTCdf(g, df);
  const pValue = Math.min(1, 2 * Math.min(pValueGreater, 1 - pValueGreater));
  // g is increasing, so |g((D − δ)/SE)| ≤ c ⇔ g⁻¹(−c) ≤ (D − δ)/SE ≤ g⁻¹(c).
  const upperT = inverseHallTransform(tCrit, lambda);
  const lowerT = inverseHallTransform(-tCrit, lambda);
  return {
    ...base,
    standardError: se,
    degreesOfFreedom: df,
    skewness: lambda,
    confidenceInterval: [lift - upperT * se, lift - lowerT * se],
    tStatistic: t,
    correctedStatistic: g,
    pValue,
    pValueGreater,
    significant: pValue < alpha,
    significantlyPositive: pValueGreater < alpha / 2,
    minimumDetectableEffect: (tCrit + studentTQuantile(power, df)) * se,
  };
}
