import type { BgNbdParams } from './bgnbd.js';
import { hyp2f1 } from './hypergeometric.js';
import { integrate } from './quadrature.js';
import type { RfmRow } from './rfm-groups.js';
import { logBeta } from './special-functions.js';

/**
 * P(alive | x, t_x, T) (Fader, Hardie & Lee 2005, eq. 12):
 * 1 / (1 + [x>0] · a/(b+x−1) · ((α+T)/(α+t_x))^(r+x)); 1 when x = 0, since under BG/NBD a customer
 * can only drop out right after a repeat purchase. Evaluated in log space.
 */
export function bgnbdProbabilityAlive(params: BgNbdParams, row: RfmRow): number {
  const { r, alpha, a, b } = params;
  const x = row.frequency;
  if (x === 0) return 1;
  const logOdds =
    Math.log(a / (b + x - 1)) + (r + x) * (Math.log(alpha + row.T) - Math.log(alpha + row.recency));
  return 1 / (1 + Math.exp(logOdds));
}

/**
 * Expected number of purchases in (0, t] of a customer just acquired, E[X(t)] (eq. 9):
 * (a+b−1)/(a−1) · [1 − (α/(α+t))^r · ₂F₁(r, b; a+b−1; t/(α+t))].
 */
export function bgnbdExpectedPurchases(params: BgNbdParams, t: number): number {
  return meanPurchasesWhileAlive(params.r, params.alpha, params.a, params.b, t);
}

/**
 * Expected number of purchases in the next t time units given the history (x, t_x, T), E[Y(t) | ·]
 * (eq. 10):
 * (a+b+x−1)/(a−1) · [1 − ((α+T)/(α+T+t))^(r+x) · ₂F₁(r+x, b+x; a+b+x−1; t/(α+T+t))]
 *   / (1 + [x>0] · a/(b+x−1) · ((α+T)/(α+t_x))^(r+x)).
 * The last factor is P(alive); the first is the expectation for an alive customer whose posterior is
 * λ ~ Gamma(r+x, α+T), p ~ Beta(a, b+x).
 */
export function bgnbdConditionalExpectedPurchases(params: BgNbdParams, row: RfmRow, t: number): number {
  const { r, alpha, a, b } = params;
  const x = row.frequency;
  const alive = meanPurchasesWhileAlive(r + x, alpha + row.T, a, b + x, t);
  return bgnbdProbabilityAlive(params, row) * alive;
}

/**
 * Expected time between purchases established by the history up to the last purchase:
 * 1 / E[λ | x purchases in t_x] = (α + t_x)/(r + x), the reciprocal of the posterior mean purchase
 * rate at the last purchase (for x = 0 it is α/r, the population's mean rate inverted).
 */
export function bgnbdExpectedGap(params: BgNbdParams, row: RfmRow): number {
  return (params.alpha + row.recency) / (params.r + row.frequency);
}

/**
 * Median waiting time from T until the next purchase: the u with P(at least one purchase in (T, T+u]) = ½.
 * P(no purchase in u) = 1 − P(alive) + P(alive)·((α+T)/(α+T+u))^(r+x), so
 * u = (α+T) · ((1 − 1/(2·P(alive)))^(−1/(r+x)) − 1). Null when P(alive) ≤ ½: the customer is then more
 * likely never to buy again, and no median exists.
 */
export function bgnbdMedianTimeToNextPurchase(params: BgNbdParams, row: RfmRow): number | null {
  const pAlive = bgnbdProbabilityAlive(params, row);
  if (!(pAlive > 0.5)) return null;
  const n = params.r + row.frequency;
  return (params.alpha + row.T) * Math.expm1(-Math.log1p(-1 / (2 * pAlive)) / n);
}

/**
 * E over p ~ Beta(a, b') and λ ~ Gamma(n, β) of the purchases in the next t of a customer alive now,
 * i.e. E[(1 − e^(−λpt))/p] = E_p[(1 − (β/(β+pt))^n)/p]. Closed form with ₂F₁ when it is well
 * conditioned (c = a+b'−1 > 0, a not within 1e-4 of 1, z = t/(β+t) ≥ 1e-3, series converged); otherwise the Beta integral
 * by quadrature. Both agree to ~1e-10 where both apply (see the tests).
 */
export function meanPurchasesWhileAlive(
  n: number,
  beta: number,
  a: number,
  bPrime: number,
  t: number,
): number {
  if (t <= 0) return 0;
  const c = a + bPrime - 1;
  const z = t / (beta + t);
  // Below z = 1e-3 the bracket 1 − (…)·₂F₁ cancels to O(z) and would lose digits.
  if (c > 0 && Math.abs(a - 1) > 1e-4 && z >= 1e-3) {
    const f = hyp2f1(n, bPrime, c, z);
    if (Number.isFinite(f)) {
      const value = (c / (a - 1)) * (1 - Math.exp(n * Math.log(beta / (beta + t))) * f);
      if (Number.isFinite(value) && value >= 0) return value;
    }
  }
  return meanPurchasesWhileAliveByQuadrature(n, beta, a, bPrime, t);
}

/**
 * The same expectation as {@link meanPurchasesWhileAlive} as a numerical integral over p. The Beta
 * density's endpoint singularities are removed by splitting at ½ and substituting v = p^a on the left
 * and w = (1−p)^b' on the right, which leaves bounded integrands for tanh-sinh quadrature.
 */
export function meanPurchasesWhileAliveByQuadrature(
  n: number,
  beta: number,
  a: number,
  bPrime: number,
  t: number,
): number {
  if (t <= 0) return 0;
  const s = t / beta;
  // (1 − (1 + p·s)^(−n)) / p, accurate for small p.
  const g = (p: number): number => -Math.expm1(-n * Math.log1p(p * s)) / p;
  const left = integrate(
    (v) => {
      const p = Math.pow(v, 1 / a);
      return g(p) * Math.exp((bPrime - 1) * Math.log1p(-p));
    },
    0,
    Math.pow(0.5, a),
  );
  const right = integrate(
    (w) => {
      const q = Math.pow(w, 1 / bPrime); // q = 1 − p
      const p = 1 - q;
      return g(p) * Math.exp((a - 1) * Math.log(p));
    },
    0,
    Math.pow(0.5, bPrime),
  );
  return Math.exp(-logBeta(a, bPrime)) * (left / a + right / bPrime);
}
