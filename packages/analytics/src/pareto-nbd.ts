import { maximizeInLogSpace } from './mle.js';
import { digamma, logGamma } from './special-functions.js';
import { GroupIndex } from './group-index.js';

/**
 * Pareto/NBD parameters (Schmittlein, Morrison & Colombo 1987): while alive a customer buys at Poisson
 * rate λ, λ ~ Gamma(shape r, rate α); their lifetime is exponential with rate μ, μ ~ Gamma(shape s,
 * rate β). α and β are in the model's time unit.
 */
export interface ParetoNbdParams {
  r: number;
  alpha: number;
  s: number;
  beta: number;
}

/**
 * One customer history, or `weight` customers sharing it: x repeat purchases, the last at t_x, observed
 * for T (time measured from the first purchase). Weight defaults to 1.
 */
export interface WeightedTriplet {
  x: number;
  tx: number;
  T: number;
  weight?: number;
}

/** Why a Pareto/NBD fit was not accepted (see {@link fitParetoNbd}). */
export type ParetoNbdFailure =
  /** No repeat purchase at all: the likelihood has no interior maximum. */
  | 'no_repeat_purchases'
  /** Neither BFGS nor the Nelder–Mead fallback met its convergence test within the iteration budget. */
  | 'not_converged'
  /** The optimum is at the parameter box's edge (a parameter beyond e^±15): a limit, not an estimate. */
  | 'at_bound'
  /** The likelihood or its gradient is not finite at the optimum. */
  | 'not_finite';

/** Result of {@link fitParetoNbd}. */
export interface ParetoNbdFit {
  params: ParetoNbdParams;
  logLikelihood: number;
  /** True when the fit is usable: converged, interior, finite. */
  converged: boolean;
  /** Null when converged; otherwise why not (the caller falls back to another model). */
  failure: ParetoNbdFailure | null;
  iterations: number;
  customers: number;
}

/** Options of {@link fitParetoNbd}. */
export interface ParetoNbdFitOptions {
  /** Starting point; by default the method-of-moments start described at {@link paretoNbdStart}. */
  initial?: ParetoNbdParams;
  /** BFGS iteration budget (Nelder–Mead gets twice this); default 300. */
  maxIterations?: number;
}

/**
 * Grouped histories: row i stands for weight[i] customers with (x[i], tx[i], T[i]). Built once by
 * {@link groupTriplets}; the fit evaluates the likelihood over rows, not customers.
 */
export interface TripletGroups {
  readonly x: Float64Array;
  readonly tx: Float64Array;
  readonly T: Float64Array;
  readonly weight: Float64Array;
  /** Σ weight. */
  readonly customers: number;
}

/**
 * Groups identical (x, t_x, T) into weighted rows (weights of equal triplets are added). Validates each
 * row: integer x ≥ 0, 0 ≤ t_x ≤ T, t_x = 0 when x = 0, weight > 0 and finite.
 */
export function groupTriplets(rows: Iterable<WeightedTriplet>): TripletGroups {
  const groups = new GroupIndex(3);
  for (const row of rows) {
    const weight = row.weight ?? 1;
    const ok =
      Number.isInteger(row.x) &&
      row.x >= 0 &&
      Number.isFinite(row.tx) &&
      Number.isFinite(row.T) &&
      row.tx >= 0 &&
      row.tx <= row.T &&
      (row.x > 0 || row.tx === 0) &&
      Number.isFinite(weight) &&
      weight > 0;
    if (!ok) throw new RangeError(`Invalid history: x=${row.x}, t_x=${row.tx}, T=${row.T}, weight=${weight}`);
    groups.add(row.x, row.tx, row.T, 0, weight);
  }
  return {
    x: groups.column(0),
    tx: groups.column(1),
    T: groups.column(2),
    weight: groups.weights(),
    customers: groups.weightTotal,
  };
}

function asGroups(data: TripletGroups | Iterable<WeightedTriplet>): TripletGroups {
  return (data as TripletGroups).weight instanceof Float64Array
    ? (data as TripletGroups)
    : groupTriplets(data as Iterable<WeightedTriplet>);
}

/*
 * The likelihood (Fader & Hardie 2005, "A note on deriving the Pareto/NBD model", eq. 3–4), written
 * with the dropout integral instead of the Gauss hypergeometric function:
 *
 *   L = Γ(r+x) α^r β^s / Γ(r) · [ (α+T)^−(r+x) (β+T)^−s + s ∫_{t_x}^{T} (α+τ)^−(r+x) (β+τ)^−(s+1) dτ ]
 *
 * (the customer is alive at T, or died at some τ in (t_x, T]). The textbook form expands the integral
 * as a difference of two ₂F₁(r+s+x, ·; r+s+x+1; z) terms; that series converges slowly when z → 1
 * (α ≫ β or β ≫ α with a short t_x), and the difference cancels: the failed fits and NaN standard
 * errors of the lifetimes issues. Here the integral is evaluated directly, after a change of variable
 * that makes its integrand flat.
 *
 * The integrand is a product of two power laws, (c+τ)^−e_c (o+τ)^−e_o, {c, o} = {α, β},
 * e_α = r+x, e_β = s+1. Let c be the factor that varies more over [t_x, T] (larger e·Δ, with
 * Δ_c = ln((c+T)/(c+t_x))), y = ln((c+τ)/(c+t_x)) ∈ [0, Δ_c] and p = e_c − 1 + e_o·Δ_o/Δ_c. Then
 *
 *   ∫ … dτ = (c+t_x)^(1−e_c) (o+t_x)^−e_o · ∫_0^{Δ_c} e^(−p·y) · B(y) dy,
 *   B(y) = exp(e_o·(y·Δ_o/Δ_c − ln((o+τ)/(o+t_x)))),
 *
 * where B = 1 at both ends (p was chosen for that) and stays close to 1 between: the power laws,
 * however steep (x in the thousands), are in e^(−p·y). The last step w = expm1(−p·y)/expm1(−p·Δ_c)
 * maps e^(−p·y)dy to a constant times dw, leaving ∫_0^1 B dw, which a fixed tanh-sinh rule of 49
 * nodes gets to ~1e-13. The rule at half the nodes comes free; when the two disagree beyond 1e-6
 * (a very uneven B) the step is halved until they agree. Everything is then summed in log space:
 * ℓ = C + log(e^L₁ + e^L₂), L₁ = −(r+x) ln(α+T) − s ln(β+T), L₂ = ln s + ln ∫ … dτ.
 *
 * The gradient differentiates under the integral: ∂/∂θ of the integrand is the integrand times
 * g_r = −ln(α+τ), g_α = −(r+x)/(α+τ), g_s = −ln(β+τ) (plus 1/s from the factor s), g_β = −(s+1)/(β+τ),
 * so the same nodes give ∫B·g dw. With π = e^L₂/(e^L₁ + e^L₂) (the posterior probability that the
 * customer has died by T):
 *   ∂r = ψ(r+x) − ψ(r) + ln α − (1−π) ln(α+T) + π·⟨g_r⟩
 *   ∂α = r/α − (1−π)(r+x)/(α+T) + π·⟨g_α⟩
 *   ∂s = ln β − (1−π) ln(β+T) + π·(1/s + ⟨g_s⟩)
 *   ∂β = s/β − (1−π) s/(β+T) + π·⟨g_β⟩
 * where ⟨g⟩ = ∫B·g dw / ∫B dw.
 */

interface Node {
  /** Position in [0, 1]. */
  w: number;
  weight: number;
  /** Whether the node belongs to the rule of twice the step too (for the error estimate). */
  even: boolean;
}

/** Tanh-sinh rule on [0, 1] with step 3/(8·2^level) over |t| ≤ 3 (49 nodes at level 0). */
function tanhSinhNodes(level: number): Node[] {
  const half = 24 << level;
  const h = 3 / half;
  const out: Node[] = [];
  for (let k = -half; k <= half; k++) {
    const t = k * h;
    const u = (Math.PI / 2) * Math.sinh(t);
    const ch = Math.cosh(u);
    const weight = (h * 0.5 * (Math.PI / 2) * Math.cosh(t)) / (ch * ch);
    // Distance to the nearer end, without cancellation.
    const near = 1 / (1 + Math.exp(2 * Math.abs(u)));
    out.push({ w: u < 0 ? near : 1 - near, weight, even: k % 2 === 0 });
  }
  return out;
}

const RULES: Node[][] = [tanhSinhNodes(0)];
const MAX_LEVEL = 6;
// Tanh-sinh roughly squares its error when the step halves: a 1e-6 gap between the two rules means
// ~1e-12 error in the finer one.
const RULE_TOLERANCE = 1e-6;

function rule(level: number): Node[] {
  while (RULES.length <= level) RULES.push(tanhSinhNodes(RULES.length));
  return RULES[level] as Node[];
}

/** The death integral of one history: L₂ and the ⟨g⟩ averages (see the comment above). */
interface DeathIntegral {
  logTerm: number;
  gr: number;
  gAlpha: number;
  gs: number;
  gBeta: number;
}

const NO_DEATH: DeathIntegral = Object.freeze({ logTerm: -Infinity, gr: 0, gAlpha: 0, gs: 0, gBeta: 0 });

function deathIntegral(
  params: ParetoNbdParams,
  x: number,
  tx: number,
  T: number,
  withGradient: boolean,
): DeathIntegral {
  const { r, alpha, s, beta } = params;
  if (!(T > tx)) return NO_DEATH;
  const m = r + x;
  const dAlpha = Math.log1p((T - tx) / (alpha + tx));
  const dBeta = Math.log1p((T - tx) / (beta + tx));
  const alphaLeads = m * dAlpha >= (s + 1) * dBeta;
  const c = alphaLeads ? alpha : beta;
  const o = alphaLeads ? beta : alpha;
  const ec = alphaLeads ? m : s + 1;
  const eo = alphaLeads ? s + 1 : m;
  const dc = alphaLeads ? dAlpha : dBeta;
  const dO = alphaLeads ? dBeta : dAlpha;
  const p = ec - 1 + (eo * dO) / dc;
  // ∫_0^Δc e^(−p·y) dy, and y(w) = −log1p(w·E)/p with E = expm1(−p·Δc) (y = w·Δc when p ≈ 0).
  const small = Math.abs(p * dc) < 1e-9;
  const E = Math.expm1(-p * dc);
  const scale = small ? dc : -E / p;
  const cTx = c + tx;
  const oTx = o + tx;
  const logCTx = Math.log(cTx);
  const logOTx = Math.log(oTx);
  let level = 0;
  for (;;) {
    let i0 = 0;
    let i0Even = 0;
    let ir = 0;
    let ia = 0;
    let is = 0;
    let ib = 0;
    const nodes = rule(level);
    for (let k = 0; k < nodes.length; k++) {
      const node = nodes[k] as Node;
      const y = small ? node.w * dc : -Math.log1p(node.w * E) / p;
      // c+τ = (c+t_x)·e^y, so o+τ = (o+t_x) + (c+t_x)·expm1(y) (no cancellation when τ ≈ t_x).
      const grow = cTx * Math.expm1(y);
      const oTau = oTx + grow;
      const logRatioO = Math.log1p(grow / oTx);
      const b = node.weight * Math.exp(eo * ((y * dO) / dc - logRatioO));
      i0 += b;
      if (node.even) i0Even += b;
      if (withGradient) {
        const cTau = cTx + grow;
        const logC = logCTx + y;
        const logO = logOTx + logRatioO;
        if (alphaLeads) {
          ir -= b * logC;
          ia -= (b * m) / cTau;
          is -= b * logO;
          ib -= (b * (s + 1)) / oTau;
        } else {
          ir -= b * logO;
          ia -= (b * m) / oTau;
          is -= b * logC;
          ib -= (b * (s + 1)) / cTau;
        }
      }
    }
    const converged = Math.abs(i0 - 2 * i0Even) <= RULE_TOLERANCE * i0;
    if (!converged && level < MAX_LEVEL) {
      level++;
      continue;
    }
    const logTerm = Math.log(s) + (1 - ec) * logCTx - eo * logOTx + Math.log(scale) + Math.log(i0);
    if (!withGradient || !(i0 > 0)) return { logTerm, gr: 0, gAlpha: 0, gs: 0, gBeta: 0 };
    return { logTerm, gr: ir / i0, gAlpha: ia / i0, gs: is / i0, gBeta: ib / i0 };
  }
}

/** Per-history log-likelihood, π (posterior probability of death by T) and optionally its gradient. */
function historyLogLikelihood(
  params: ParetoNbdParams,
  x: number,
  tx: number,
  T: number,
  gradient?: number[],
): { ll: number; pDead: number } {
  const { r, alpha, s, beta } = params;
  const m = r + x;
  const l1 = -m * Math.log(alpha + T) - s * Math.log(beta + T);
  const d = deathIntegral(params, x, tx, T, gradient !== undefined);
  const hi = Math.max(l1, d.logTerm);
  const e1 = Math.exp(l1 - hi);
  const e2 = Math.exp(d.logTerm - hi);
  const pDead = e2 / (e1 + e2);
  const ll = logGamma(m) - logGamma(r) + r * Math.log(alpha) + s * Math.log(beta) + hi + Math.log(e1 + e2);
  if (gradient) {
    const alive = 1 - pDead;
    gradient[0] = digamma(m) - digamma(r) + Math.log(alpha) - alive * Math.log(alpha + T) + pDead * d.gr;
    gradient[1] = r / alpha - (alive * m) / (alpha + T) + pDead * d.gAlpha;
    gradient[2] = Math.log(beta) - alive * Math.log(beta + T) + pDead * (1 / s + d.gs);
    gradient[3] = s / beta - (alive * s) / (beta + T) + pDead * d.gBeta;
  }
  return { ll, pDead };
}

/** Σ weight · ℓ(r, α, s, β | x, t_x, T), and its gradient into `gradient` when given. */
export function paretoNbdLogLikelihood(
  params: ParetoNbdParams,
  data: TripletGroups | Iterable<WeightedTriplet>,
  gradient?: number[],
): number {
  const { r, alpha, s, beta } = params;
  if (!(r > 0 && alpha > 0 && s > 0 && beta > 0)) return NaN;
  const g = asGroups(data);
  let total = 0;
  const one = gradient ? [0, 0, 0, 0] : undefined;
  if (gradient) gradient.fill(0, 0, 4);
  for (let i = 0; i < g.weight.length; i++) {
    const w = g.weight[i] as number;
    total += w * historyLogLikelihood(params, g.x[i] as number, g.tx[i] as number, g.T[i] as number, one).ll;
    if (gradient && one)
      for (let k = 0; k < 4; k++) gradient[k] = (gradient[k] as number) + w * (one[k] as number);
  }
  return total;
}

/**
 * The default starting point. The purchase process alone is an NBD with mean r/α per unit time; with
 * r = 1 (the NBD's moment estimate is unstable) α = Σw·T / Σw·x per customer matches the mean rate of
 * the observed windows; dropout starts at s = 1 and β = the mean window length, i.e. a median lifetime
 * of about the observation span. The likelihood is smooth and BFGS on the log-parameters reaches the
 * CDNOW optimum from here in a few dozen iterations.
 */
export function paretoNbdStart(groups: TripletGroups): ParetoNbdParams {
  let sumX = 0;
  let sumT = 0;
  for (let i = 0; i < groups.weight.length; i++) {
    sumX += (groups.weight[i] as number) * (groups.x[i] as number);
    sumT += (groups.weight[i] as number) * (groups.T[i] as number);
  }
  return { r: 1, alpha: sumT / Math.max(sumX, 1e-9), s: 1, beta: Math.max(sumT / groups.customers, 1e-3) };
}

// θ = ln(param) is bounded to ±15 by maximizeInLogSpace; an optimum within 0.5 of that edge is a limit.
const EDGE = 14.5;

/**
 * Fits Pareto/NBD by maximum likelihood on grouped histories: BFGS with the analytic gradient on the
 * log-parameters (Nelder–Mead if BFGS stalls), see `maximizeInLogSpace`. Never fails silently: the
 * result says `converged` and, when not, a typed `failure` the caller acts on (the recompute then
 * keeps BG/NBD). Throws nothing for data it can validate; an invalid row is a RangeError.
 */
export function fitParetoNbd(
  data: TripletGroups | Iterable<WeightedTriplet>,
  options: ParetoNbdFitOptions = {},
): ParetoNbdFit {
  const groups = asGroups(data);
  let repeat = 0;
  for (let i = 0; i < groups.x.length; i++)
    if ((groups.x[i] as number) > 0) repeat += groups.weight[i] as number;
  const init = options.initial ?? paretoNbdStart(groups);
  if (repeat === 0) {
    return {
      params: init,
      logLikelihood: NaN,
      converged: false,
      failure: 'no_repeat_purchases',
      iterations: 0,
      customers: groups.customers,
    };
  }
  const result = maximizeInLogSpace(
    ([r, alpha, s, beta], gradient) =>
      paretoNbdLogLikelihood({ r, alpha, s, beta } as ParetoNbdParams, groups, gradient),
    [init.r, init.alpha, init.s, init.beta],
    options.maxIterations ?? 300,
  );
  const [r, alpha, s, beta] = result.params as [number, number, number, number];
  const params = { r, alpha, s, beta };
  const failure: ParetoNbdFailure | null = !Number.isFinite(result.logLikelihood)
    ? 'not_finite'
    : result.params.some((v) => Math.abs(Math.log(v)) > EDGE)
      ? 'at_bound'
      : !result.converged
        ? 'not_converged'
        : null;
  return {
    params,
    logLikelihood: result.logLikelihood,
    converged: failure === null,
    failure,
    iterations: result.iterations,
    customers: groups.customers,
  };
}

/**
 * P(alive at T | x, t_x, T) = e^L₁ / (e^L₁ + e^L₂) (Fader & Hardie 2005 note, eq. 11), i.e. 1 − π.
 */
export function paretoNbdProbabilityAlive(params: ParetoNbdParams, h: WeightedTriplet): number {
  return 1 - historyLogLikelihood(params, h.x, h.tx, h.T).pDead;
}

/**
 * E[purchases in (T, T+t] | alive at T] = E[λ]·E[(1 − e^(−μt))/μ] under the posterior
 * λ ~ Gamma(r+x, α+T), μ ~ Gamma(s, β+T):
 * (r+x)/(α+T) · (β+T)/(s−1) · [1 − ((β+T)/(β+T+t))^(s−1)], with the limit
 * (r+x)/(α+T) · (β+T) · ln(1 + t/(β+T)) at s = 1 (expm1/log1p keep s near 1 exact).
 */
export function paretoNbdMeanPurchasesWhileAlive(
  params: ParetoNbdParams,
  h: WeightedTriplet,
  t: number,
): number {
  if (!(t > 0)) return 0;
  const { r, alpha, s, beta } = params;
  const bT = beta + h.T;
  const l = Math.log1p(t / bT);
  const k = s - 1;
  const lifetime = Math.abs(k * l) < 1e-8 ? l * (1 - (k * l) / 2) : -Math.expm1(-k * l) / k;
  return ((r + h.x) / (alpha + h.T)) * bT * lifetime;
}

/**
 * E[Y(t) | x, t_x, T], the expected purchases in the next t (note, eq. 12): P(alive) times
 * {@link paretoNbdMeanPurchasesWhileAlive}.
 */
export function paretoNbdConditionalExpectedPurchases(
  params: ParetoNbdParams,
  h: WeightedTriplet,
  t: number,
): number {
  return paretoNbdProbabilityAlive(params, h) * paretoNbdMeanPurchasesWhileAlive(params, h, t);
}

/**
 * E[X(t)] of a customer just acquired: r β / (α (s−1)) · [1 − (β/(β+t))^(s−1)] (the unconditional
 * expectation; x = t_x = T = 0 in the conditional one, where P(alive) = 1).
 */
export function paretoNbdExpectedPurchases(params: ParetoNbdParams, t: number): number {
  return paretoNbdMeanPurchasesWhileAlive(params, { x: 0, tx: 0, T: 0 }, t);
}

/**
 * P(no purchase in (T, T+t] | x, t_x, T). Dead at T: certain. Alive at T with rates λ, μ and remaining
 * lifetime u ~ Exp(μ): no purchase while alive within t, i.e. E[e^(−λ·min(u, t))]
 * = e^(−(λ+μ)t) + ∫_0^t μ e^(−(λ+μ)v) dv. Over the posterior λ ~ Gamma(r+x, α+T), μ ~ Gamma(s, β+T):
 *   ((α+T)/(α+T+t))^(r+x) ((β+T)/(β+T+t))^s + s (α+T)^(r+x) (β+T)^s ∫_0^t (α+T+v)^−(r+x) (β+T+v)^−(s+1) dv,
 * the likelihood's own bracket with α, β shifted by T: the same death integral evaluates it.
 */
export function paretoNbdProbabilityNoPurchase(
  params: ParetoNbdParams,
  h: WeightedTriplet,
  t: number,
): number {
  const pAlive = paretoNbdProbabilityAlive(params, h);
  if (!(t > 0)) return 1;
  const { r, s } = params;
  const m = r + h.x;
  const a = params.alpha + h.T;
  const b = params.beta + h.T;
  const shifted = { r, alpha: a, s, beta: b };
  const l1 = -m * Math.log1p(t / a) - s * Math.log1p(t / b);
  // deathIntegral's L₂ for (x, 0, t) at the shifted rates, plus ln(a^m b^s) to normalise.
  const l2 = deathIntegral(shifted, h.x, 0, t, false).logTerm + m * Math.log(a) + s * Math.log(b);
  const quiet = Math.min(1, Math.exp(l1) + Math.exp(l2));
  return 1 - pAlive + pAlive * quiet;
}
