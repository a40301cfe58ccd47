import { logGamma, regularizedIncompleteBeta } from './special-functions.js';

/**
 * CDF of Student's t distribution with `df` degrees of freedom (df > 0, may be fractional as in
 * Welch's test): P(T ≤ t) = 1 − ½·I_{df/(df+t²)}(df/2, ½) for t > 0, symmetric for t < 0.
 */
export function studentTCdf(t: number, df: number): number {
  if (Number.isNaN(t) || !(df > 0)) return NaN;
  if (t === Infinity) return 1;
  if (t === -Infinity) return 0;
  const tail = 0.5 * regularizedIncompleteBeta(df / (df + t * t), df / 2, 0.5);
  return t > 0 ? 1 - tail : tail;
}

/** Density of Student's t distribution. */
export function studentTPdf(t: number, df: number): number {
  const logDensity =
    logGamma((df + 1) / 2) -
    logGamma(df / 2) -
    0.5 * Math.log(df * Math.PI) -
    ((df + 1) / 2) * Math.log1p((t * t) / df);
  return Math.exp(logDensity);
}

/**
 * Quantile (inverse CDF) of Student's t distribution: the t with P(T ≤ t) = p. Found by bracketing and
 * bisection on the monotone CDF (to ~1e-13), then polished with two Newton steps.
 */
export function studentTQuantile(p: number, df: number): number {
  if (!(p >= 0 && p <= 1) || !(df > 0)) return NaN;
  if (p === 0) return -Infinity;
  if (p === 1) return Infinity;
  if (p === 0.5) return 0;
  // Solve in the upper tail for accuracy and reflect.
  const upper = p > 0.5;
  const target = upper ? 1 - p : p; // lower-tail probability of −|t|
  let hi = 1;
  while (studentTCdf(-hi, df) > target && hi < 1e300) hi *= 2;
  let lo = 0;
  for (let i = 0; i < 200 && hi - lo > 1e-13 * Math.max(1, hi); i++) {
    const m = (lo + hi) / 2;
    if (studentTCdf(-m, df) > target) lo = m;
    else hi = m;
  }
  let t = (lo + hi) / 2;
  for (let i = 0; i < 2; i++) {
    const density = studentTPdf(t, df);
    if (!(density > 0)) break;
    const step = (studentTCdf(-t, df) - target) / density;
    if (Number.isFinite(step) && Math.abs(step) < 1e-6 * Math.max(1, t)) t += step;
  }
  return upper ? t : -t;
}
