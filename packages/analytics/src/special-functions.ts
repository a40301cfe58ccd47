// Lanczos approximation (g = 7, n = 9): relative error below 1e-15 for positive arguments.
const LANCZOS_G = 7;
const LANCZOS = [
  0.99999999999980993, 676.5203681218851, -1259.1392167224028, 771.32342877765313, -176.61502916214059,
  12.507343278686905, -0.13857109526572012, 9.9843695780195716e-6, 1.5056327351493116e-7,
];
const HALF_LOG_TWO_PI = 0.5 * Math.log(2 * Math.PI);

/** Natural log of the gamma function, ln Γ(x), for x > 0 (reflection formula below 0.5). */
export function logGamma(x: number): number {
  if (Number.isNaN(x)) return NaN;
  if (x < 0.5) {
    // Γ(x)Γ(1−x) = π / sin(πx); ln|Γ| for negative non-integers.
    return Math.log(Math.PI / Math.abs(Math.sin(Math.PI * x))) - logGamma(1 - x);
  }
  const z = x - 1;
  let sum = LANCZOS[0] as number;
  for (let i = 1; i < LANCZOS.length; i++) sum += (LANCZOS[i] as number) / (z + i);
  const t = z + LANCZOS_G + 0.5;
  return HALF_LOG_TWO_PI + (z + 0.5) * Math.log(t) - t + Math.log(sum);
}

/** Natural log of the beta function, ln B(a, b) = ln Γ(a) + ln Γ(b) − ln Γ(a + b). */
export function logBeta(a: number, b: number): number {
  return logGamma(a) + logGamma(b) - logGamma(a + b);
}

/** log(exp(u) + exp(v)) without overflow. */
export function logSumExp(u: number, v: number): number {
  const hi = Math.max(u, v);
  if (hi === -Infinity) return -Infinity;
  return hi + Math.log1p(Math.exp(Math.min(u, v) - hi));
}

/**
 * Regularised incomplete beta function I_x(a, b) via the continued fraction of Numerical Recipes
 * (modified Lentz), using the symmetry I_x(a,b) = 1 − I_{1−x}(b,a) where the fraction converges slowly.
 */
export function regularizedIncompleteBeta(x: number, a: number, b: number): number {
  if (!(a > 0 && b > 0) || Number.isNaN(x)) return NaN;
  if (x <= 0) return 0;
  if (x >= 1) return 1;
  const logFront = a * Math.log(x) + b * Math.log1p(-x) - logBeta(a, b);
  if (x < (a + 1) / (a + b + 2)) return (Math.exp(logFront) * betaContinuedFraction(x, a, b)) / a;
  return 1 - (Math.exp(logFront) * betaContinuedFraction(1 - x, b, a)) / b;
}

function betaContinuedFraction(x: number, a: number, b: number): number {
  const tiny = 1e-300;
  let c = 1;
  let d = 1 - ((a + b) * x) / (a + 1);
  if (Math.abs(d) < tiny) d = tiny;
  d = 1 / d;
  let h = d;
  for (let m = 1; m <= 10_000; m++) {
    const m2 = 2 * m;
    let aa = (m * (b - m) * x) / ((a + m2 - 1) * (a + m2));
    d = 1 + aa * d;
    if (Math.abs(d) < tiny) d = tiny;
    c = 1 + aa / c;
    if (Math.abs(c) < tiny) c = tiny;
    d = 1 / d;
    h *= d * c;
    aa = (-(a + m) * (a + b + m) * x) / ((a + m2) * (a + m2 + 1));
    d = 1 + aa * d;
    if (Math.abs(d) < tiny) d = tiny;
    c = 1 + aa / c;
    if (Math.abs(c) < tiny) c = tiny;
    d = 1 / d;
    const delta = d * c;
    h *= delta;
    if (Math.abs(delta - 1) < 1e-16) return h;
  }
  return h;
}

/** Median of a numeric array (NaN when empty); does not modify the input. */
export function median(values: readonly number[]): number {
  if (values.length === 0) return NaN;
  const sorted = [...values].sort((p, q) => p - q);
  const mid = sorted.length >> 1;
  return sorted.length % 2 === 1
    ? (sorted[mid] as number)
    : ((sorted[mid - 1] as number) + (sorted[mid] as number)) / 2;
}

/**
 * Digamma ψ(x) = d/dx ln Γ(x) for x > 0: the recurrence ψ(x) = ψ(x+1) − 1/x up to x ≥ 10, then the
 * asymptotic series ln x − 1/(2x) − Σ B₂ₖ/(2k·x^(2k)) (absolute error below 1e-14).
 */
export function digamma(x: number): number {
  if (!(x > 0)) return NaN;
  let shift = 0;
  while (x < 10) {
    shift -= 1 / x;
    x += 1;
  }
  const inv2 = 1 / (x * x);
  const series =
    inv2 *
    (1 / 12 -
      inv2 * (1 / 120 - inv2 * (1 / 252 - inv2 * (1 / 240 - inv2 * (1 / 132 - (inv2 * 691) / 32760)))));
  return shift + Math.log(x) - 0.5 / x - series;
}
