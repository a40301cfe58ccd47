import { maximizeInLogSpace } from './mle.js';
import { groupRfm, isRfmGroups } from './rfm-groups.js';
import type { RfmGroups, RfmRow } from './rfm-groups.js';
import { digamma, logBeta, logGamma } from './special-functions.js';

/**
 * BG/NBD parameters (Fader, Hardie & Lee 2005): while active a customer buys at Poisson rate λ,
 * λ ~ Gamma(shape r, rate α); after each repeat purchase they drop out with probability p,
 * p ~ Beta(a, b). α is in the model's time unit.
 */
export interface BgNbdParams {
  r: number;
  alpha: number;
  a: number;
  b: number;
}

/** Result of {@link fitBgNbd}. */
export interface BgNbdFit {
  params: BgNbdParams;
  logLikelihood: number;
  /** Whether the optimiser met its convergence test (see `nelderMead`). */
  converged: boolean;
  iterations: number;
  customers: number;
}

/** Options of {@link fitBgNbd}. */
export interface BgNbdFitOptions {
  /** Starting point; by default r = a = b = 1 and α = ΣT/Σx (so that r/α matches the mean purchase rate). */
  initial?: BgNbdParams;
  maxIterations?: number;
}

/**
 * BG/NBD log-likelihood, eq. (6) of Fader, Hardie & Lee (2005), in log space:
 * ℓ = ln Γ(r+x) − ln Γ(r) + r ln α
 *     + logsumexp( ln B(a, b+x) − ln B(a,b) − (r+x) ln(α+T),
 *                  [x>0] ln B(a+1, b+x−1) − ln B(a,b) − (r+x) ln(α+t_x) ).
 * The second term only exists when x > 0 (a customer cannot drop out before a repeat purchase).
 */
export function bgnbdLogLikelihood(params: BgNbdParams, data: RfmGroups | Iterable<RfmRow>): number {
  return compileBgNbd(isRfmGroups(data) ? data : groupRfm(data))(params);
}

/** Gradient ∂ℓ/∂(r, α, a, b) of {@link bgnbdLogLikelihood} (analytic; see the formulas below). */
export function bgnbdLogLikelihoodGradient(
  params: BgNbdParams,
  data: RfmGroups | Iterable<RfmRow>,
): number[] {
  const gradient = [0, 0, 0, 0];
  compileBgNbd(isRfmGroups(data) ? data : groupRfm(data))(params, gradient);
  return gradient;
}

/**
 * Per-customer log-likelihood ℓ(r, α, a, b | x, t_x, T) (see {@link bgnbdLogLikelihood}).
 */
export function bgnbdCustomerLogLikelihood(params: BgNbdParams, row: RfmRow): number {
  return bgnbdLogLikelihood(params, [row]);
}

/**
 * Fits BG/NBD by maximum likelihood over the grouped data: BFGS with the analytic gradient on the
 * log-parameters (see `maximizeInLogSpace`).
 * Throws when there is no repeat purchase at all (the likelihood then has no interior maximum).
 */
export function fitBgNbd(data: RfmGroups | Iterable<RfmRow>, options: BgNbdFitOptions = {}): BgNbdFit {
  const groups = isRfmGroups(data) ? data : groupRfm(data);
  let sumX = 0;
  let sumT = 0;
  for (let i = 0; i < groups.weight.length; i++) {
    sumX += (groups.weight[i] as number) * (groups.frequency[i] as number);
    sumT += (groups.weight[i] as number) * (groups.T[i] as number);
  }
  if (!(sumX > 0 && sumT > 0)) throw new RangeError('BG/NBD needs at least one repeat purchase to fit');
  const init = options.initial ?? { r: 1, alpha: sumT / sumX, a: 1, b: 1 };
  const ll = compileBgNbd(groups);
  const result = maximizeInLogSpace(
    ([r, alpha, a, b], gradient) => ll({ r, alpha, a, b } as BgNbdParams, gradient),
    [init.r, init.alpha, init.a, init.b],
    options.maxIterations,
  );
  const [r, alpha, a, b] = result.params as [number, number, number, number];
  return {
    params: { r, alpha, a, b },
    logLikelihood: result.logLikelihood,
    converged: result.converged,
    iterations: result.iterations,
    customers: groups.customers,
  };
}

/**
 * Prepares grouped data for repeated likelihood evaluations: terms that depend only on x are computed
 * once per distinct x, and ln(α+T), ln(α+t_x) once per distinct T and t_x, leaving one exp and one
 * log1p per repeat-buyer group. With `gradient` given, also writes ∂ℓ/∂(r, α, a, b) into it. Writing
 * ℓ = A + ln(1 + e^D) with D = ln(a/(b+x−1)) + (r+x)·ln((α+T)/(α+t_x)) and π = e^D/(1+e^D) (the
 * posterior probability that the customer has dropped out):
 * ∂r = ψ(r+x) − ψ(r) + ln α − ln(α+T) + π·ln((α+T)/(α+t_x))
 * ∂α = r/α − (r+x)/(α+T) + π·(r+x)·(1/(α+T) − 1/(α+t_x))
 * ∂a = ψ(a+b) − ψ(a+b+x) + π/a
 * ∂b = ψ(b+x) − ψ(b) + ψ(a+b) − ψ(a+b+x) − π/(b+x−1)
 */
function compileBgNbd(groups: RfmGroups): (params: BgNbdParams, gradient?: number[]) => number {
  const xs = distinctIndex(groups.frequency);
  const Ts = distinctIndex(groups.T);
  const txs = distinctIndex(groups.recency);
  const n = groups.weight.length;
  const nx = xs.values.length;
  const [cA, dX, gr, ga, gb] = [0, 0, 0, 0, 0].map(() => new Float64Array(nx)) as Float64Array[] as [
    Float64Array,
    Float64Array,
    Float64Array,
    Float64Array,
    Float64Array,
  ];
  const lT = new Float64Array(Ts.values.length);
  const iT = new Float64Array(Ts.values.length);
  const lt = new Float64Array(txs.values.length);
  const it = new Float64Array(txs.values.length);
  return ({ r, alpha, a, b }, gradient) => {
    if (!(r > 0 && alpha > 0 && a > 0 && b > 0)) return NaN;
    const base = r * Math.log(alpha) - logGamma(r) - logBeta(a, b);
    const withGradient = gradient !== undefined;
    const psiR = withGradient ? digamma(r) : 0;
    const psiB = withGradient ? digamma(b) : 0;
    const psiAB = withGradient ? digamma(a + b) : 0;
    for (let j = 0; j < nx; j++) {
      const x = xs.values[j] as number;
      cA[j] = base + logGamma(r + x) + logBeta(a, b + x);
      // B(a+1, b+x−1) = B(a, b+x) · a/(b+x−1)
      dX[j] = x > 0 ? Math.log(a / (b + x - 1)) : -Infinity;
      if (withGradient) {
        const psiABX = digamma(a + b + x);
        gr[j] = digamma(r + x) - psiR;
        ga[j] = psiAB - psiABX;
        gb[j] = digamma(b + x) - psiB + psiAB - psiABX;
      }
    }
    for (let k = 0; k < lT.length; k++) {
      lT[k] = Math.log(alpha + (Ts.values[k] as number));
      iT[k] = 1 / (alpha + (Ts.values[k] as number));
    }
    for (let k = 0; k < lt.length; k++) {
      lt[k] = Math.log(alpha + (txs.values[k] as number));
      it[k] = 1 / (alpha + (txs.values[k] as number));
    }
    let total = 0;
    let [dr, dAlpha, da, db] = [0, 0, 0, 0];
    for (let i = 0; i < n; i++) {
      const j = xs.index[i] as number;
      const w = groups.weight[i] as number;
      const x = groups.frequency[i] as number;
      const m = r + x;
      const logT = lT[Ts.index[i] as number] as number;
      let ll = (cA[j] as number) - m * logT;
      let pi = 0;
      let logRatio = 0;
      if (x > 0) {
        logRatio = logT - (lt[txs.index[i] as number] as number);
        const d = (dX[j] as number) + m * logRatio;
        const e = Math.exp(-Math.abs(d));
        ll += (d > 0 ? d : 0) + Math.log1p(e);
        pi = d > 0 ? 1 / (1 + e) : e / (1 + e);
      }
      total += w * ll;
      if (withGradient) {
        const invT = iT[Ts.index[i] as number] as number;
        dr += w * ((gr[j] as number) - logT + pi * logRatio);
        dAlpha += w * (-m * invT + (x > 0 ? pi * m * (invT - (it[txs.index[i] as number] as number)) : 0));
        da += w * ((ga[j] as number) + pi / a);
        db += w * ((gb[j] as number) - (x > 0 ? pi / (b + x - 1) : 0));
      }
    }
    if (gradient) {
      const customers = groups.customers;
      gradient[0] = dr + customers * Math.log(alpha);
      gradient[1] = dAlpha + (customers * r) / alpha;
      gradient[2] = da;
      gradient[3] = db;
    }
    return total;
  };
}

function distinctIndex(values: Float64Array): { values: number[]; index: Uint32Array } {
  const map = new Map<number, number>();
  const distinct: number[] = [];
  const index = new Uint32Array(values.length);
  for (let i = 0; i < values.length; i++) {
    const v = values[i] as number;
    let at = map.get(v);
    if (at === undefined) {
      at = distinct.length;
      map.set(v, at);
      distinct.push(v);
    }
    index[i] = at;
  }
  return { values: distinct, index };
}
