/**
 * Hall's (1992) skewness-removing transformation of a studentised mean difference, for the two-sample
 * (Welch) case. Revenue is right-skewed: a holdout that happens to miss its few big spenders has both
 * a low mean and a low variance, so Welch's t is large and positive more often than the t table says.
 * The Edgeworth expansion of T = (D − δ)/SE has a leading term in λ = κ₃(D)/Var(D)^{3/2}; Hall's
 * monotone cubic g removes it, and g(T) is compared with the t table instead of T.
 *
 * One group: κ₃(x̄) = k₃/n², Var(x̄) = s²/n, so λ = γ̂/√n (Hall's case). Two groups, D = x̄₁ − x̄₂:
 * κ₃(D) = k₃₁/n₁² − k₃₂/n₂², and every n^{-1/2} term of the expansion is a sum of per-group terms of the
 * one-sample form, so the same g applies with this λ. With a 19:1 split the holdout's term dominates and
 * λ < 0 for right-skewed revenue: g pulls large positive T down.
 */

/** The transformation g(T) = T + λ/6 + λT²/3 + λ²T³/27 (monotone: g′ = (1 + λT/3)² ≥ 0). */
export function hallTransform(t: number, lambda: number): number {
  return t + lambda / 6 + (lambda * t * t) / 3 + (lambda * lambda * t * t * t) / 27;
}

/**
 * The inverse of {@link hallTransform}: the T with g(T) = y. g(T) = ((1 + λT/3)³ − 1)/λ + λ/6, so
 * T = 3(∛(1 + λ(y − λ/6)) − 1)/λ; for λ = 0, T = y.
 */
export function inverseHallTransform(y: number, lambda: number): number {
  if (Math.abs(lambda) < 1e-12) return y - lambda / 6;
  return (3 * (Math.cbrt(1 + lambda * (y - lambda / 6)) - 1)) / lambda;
}

/** n, mean, unbiased variance and unbiased third cumulant (k₃) of a sample, in two passes. */
export interface SampleMoments {
  readonly n: number;
  readonly mean: number;
  /** s², NaN below n = 2. */
  readonly variance: number;
  /** k₃ = n/((n−1)(n−2)) Σ(x − x̄)³, NaN below n = 3 (then 0 is used: no correction). */
  readonly thirdCumulant: number;
}

/** Moments of a sample (see {@link SampleMoments}). */
export function sampleMoments(values: ArrayLike<number>): SampleMoments {
  const n = values.length;
  if (n === 0) return { n, mean: NaN, variance: NaN, thirdCumulant: NaN };
  let sum = 0;
  for (let i = 0; i < n; i++) sum += values[i]!;
  const mean = sum / n;
  let m2 = 0;
  let m3 = 0;
  for (let i = 0; i < n; i++) {
    const d = values[i]! - mean;
    const d2 = d * d;
    m2 += d2;
    m3 += d2 * d;
  }
  return {
    n,
    mean,
    variance: n > 1 ? m2 / (n - 1) : NaN,
    thirdCumulant: n > 2 ? (n * m3) / ((n - 1) * (n - 2)) : NaN,
  };
}

/**
 * λ of the difference of means a − b: κ₃(D)/Var(D)^{3/2} with κ₃(D) = k₃ₐ/nₐ² − k₃ᵦ/nᵦ². 0 when it
 * cannot be estimated (fewer than three values in a group, or no variance).
 */
export function differenceSkewness(a: SampleMoments, b: SampleMoments): number {
  const k3a = Number.isFinite(a.thirdCumulant) ? a.thirdCumulant : 0;
  const k3b = Number.isFinite(b.thirdCumulant) ? b.thirdCumulant : 0;
  const v = a.variance / a.n + b.variance / b.n;
  if (!(v > 0)) return 0;
  return (k3a / (a.n * a.n) - k3b / (b.n * b.n)) / v ** 1.5;
}
