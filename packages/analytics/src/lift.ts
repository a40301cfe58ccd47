import { studentTCdf, studentTQuantile } from './student-t.js';

/** Options of {@link liftStatistics}. */
export interface LiftOptions {
  /** Two-sided significance level (default 0.05, i.e. a 95% interval). */
  alpha?: number;
  /** Power used for the minimum detectable effect (default 0.8). */
  power?: number;
}

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
  /** (1 − alpha) Welch interval of the lift. */
  confidenceInterval: [number, number];
  confidenceLevel: number;
  tStatistic: number;
  /** Two-sided p-value of H0: lift = 0. */
  pValue: number;
  /** pValue < alpha (equivalently, the interval excludes 0). */
  significant: boolean;
  /** lift × treatedCount: revenue the treatment added over the treated group. */
  incrementalRevenue: number;
  /**
   * Smallest true lift detected with probability `power` at level alpha with these group sizes and
   * variances: (t_{1−α/2,ν} + t_{power,ν}) · SE.
   */
  minimumDetectableEffect: number;
}

/**
 * Lift of treated over holdout customers from per-customer net revenue, with Welch's unequal-variance t
 * statistics: SE = √(s₁²/n₁ + s₂²/n₂), ν = SE⁴ / ((s₁²/n₁)²/(n₁−1) + (s₂²/n₂)²/(n₂−1)). Welch rather
 * than the pooled t-test because the groups are very unequal (95% vs 5%) and treatment can change the
 * variance; the pooled test is miscalibrated exactly in that case, while Welch loses almost nothing when
 * variances are equal. Revenue is skewed, but the interval concerns means of hundreds or more customers,
 * where the t approximation holds (checked by simulation in the tests). With fewer than two customers in
 * a group everything statistical is NaN and `significant` is false; with zero variance in both groups
 * the interval collapses to the observed difference.
 */
export function liftStatistics(
  treated: readonly number[],
  holdout: readonly number[],
  options: LiftOptions = {},
): LiftResult {
  const alpha = options.alpha ?? 0.05;
  const power = options.power ?? 0.8;
  const a = moments(treated);
  const b = moments(holdout);
  const lift = a.mean - b.mean;
  const base = {
    treatedCount: a.n,
    holdoutCount: b.n,
    treatedMean: a.mean,
    holdoutMean: b.mean,
    lift,
    confidenceLevel: 1 - alpha,
    incrementalRevenue: lift * a.n,
  };
  if (a.n < 2 || b.n < 2) {
    const nan = { standardError: NaN, degreesOfFreedom: NaN, tStatistic: NaN, pValue: NaN };
    return {
      ...base,
      ...nan,
      confidenceInterval: [NaN, NaN],
      significant: false,
      minimumDetectableEffect: NaN,
    };
  }
  const va = a.variance / a.n;
  const vb = b.variance / b.n;
  const se = Math.sqrt(va + vb);
  if (se === 0) {
    const df = a.n + b.n - 2;
    const pValue = lift === 0 ? 1 : 0;
    return {
      ...base,
      standardError: 0,
      degreesOfFreedom: df,
      confidenceInterval: [lift, lift],
      tStatistic: lift === 0 ? 0 : Math.sign(lift) * Infinity,
      pValue,
      significant: pValue < alpha,
      minimumDetectableEffect: 0,
    };
  }
  const df = (va + vb) ** 2 / (va ** 2 / (a.n - 1) + vb ** 2 / (b.n - 1));
  const tCrit = studentTQuantile(1 - alpha / 2, df);
  const t = lift / se;
  const pValue = Math.min(1, 2 * studentTCdf(-Math.abs(t), df));
  return {
    ...base,
    standardError: se,
    degreesOfFreedom: df,
    confidenceInterval: [lift - tCrit * se, lift + tCrit * se],
    tStatistic: t,
    pValue,
    significant: pValue < alpha,
    minimumDetectableEffect: (tCrit + studentTQuantile(power, df)) * se,
  };
}

function moments(values: readonly number[]): { n: number; mean: number; variance: number } {
  const n = values.length;
  if (n === 0) return { n, mean: NaN, variance: NaN };
  let sum = 0;
  for (const v of values) sum += v;
  const mean = sum / n;
  let squares = 0;
  for (const v of values) squares += (v - mean) ** 2;
  return { n, mean, variance: n > 1 ? squares / (n - 1) : NaN };
}
