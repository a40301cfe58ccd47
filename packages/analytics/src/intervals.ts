import { bgnbdLogLikelihoodGradient } from './bgnbd.js';
import type { BgNbdParams } from './bgnbd.js';
import { bgnbdProbabilityAlive } from './bgnbd-predict.js';
import type { History } from './holdout-diagnostics.js';
import { paretoNbdLogLikelihood, paretoNbdProbabilityAlive } from './pareto-nbd.js';
import type { ParetoNbdParams, TripletGroups } from './pareto-nbd.js';
import { mulberry32 } from './prng.js';
import { variates } from './random-variates.js';
import type { Variates } from './random-variates.js';

/** A fitted purchase model, as the intervals need it. */
export type FittedPurchaseModel =
  { model: 'bgnbd'; params: BgNbdParams } | { model: 'pareto-nbd'; params: ParetoNbdParams };

/** Options of {@link purchaseIntervals}. */
export interface IntervalOptions {
  /** Central probability of the interval (default 0.9). */
  level?: number;
  /** Parameter vectors drawn from the MLE's asymptotic normal (default 20). */
  parameterDraws?: number;
  /** Draws of the customer's own rates per parameter vector (default 25). */
  customerDraws?: number;
  /** Whether to draw parameter vectors at all (default true); false: the customer's uncertainty only. */
  parameterUncertainty?: boolean;
  /**
   * The Gamma-Gamma fit: with it each interval also gives the value interval (`valueLow`, `valueHigh`,
   * `valueLowOwn`, `valueHighOwn`), which carries the customer's uncertain spend per purchase and, with
   * its `logCovariance`, the fit's uncertain p, q, γ. Without it the value interval is the purchase
   * interval.
   */
  spend?: SpendShape | null;
  seed?: number;
}

/**
 * The Gamma-Gamma fit as the value interval needs it: p and q (the customer's spend uncertainty
 * depends on them only: γ cancels out of the ratio) and, for the fit's own uncertainty, γ and the
 * covariance of ln(p, q, γ) (`GammaGammaFit.logCovariance`). Without the covariance the spend
 * parameters are the point estimate's.
 */
export interface SpendShape {
  readonly p: number;
  readonly q: number;
  readonly gamma?: number;
  readonly logCovariance?: readonly (readonly number[])[] | null;
}

/** A customer's interval for their expected purchases over the horizon. */
export interface PurchaseInterval {
  low: number;
  high: number;
  /** Posterior probability that the customer has already dropped out (their expected purchases are 0). */
  pDead: number;
  /**
   * The interval of expected purchases × (spend per purchase ÷ its expectation), in purchases: times
   * the customer's expected spend (and discounting), the lifetime value's interval. The same as
   * low/high without a spend model or where the spend's mean does not exist (px + q ≤ 1).
   * With the spend fit's parameter uncertainty the ratio also depends on the customer's m_x, through
   * the population's share u = γ/(γ + x·m_x) of their posterior spend rate: valueLow/valueHigh hold
   * at u = 1 (x = 0, or m_x → 0), valueLowOwn/valueHighOwn at u = 0 (m_x → ∞); {@link valueBounds}
   * interpolates a customer's. Without it the two pairs are equal.
   */
  valueLow: number;
  valueHigh: number;
  valueLowOwn: number;
  valueHighOwn: number;
}

/**
 * The population's share of a customer's posterior spend scale γ + x·m_x (Gamma-Gamma): 1 for x = 0,
 * towards 0 as the customer's own spend accumulates.
 */
export function populationShare(gamma: number, x: number, monetaryValue: number): number {
  const own = x > 0 && monetaryValue > 0 ? x * monetaryValue : 0;
  return gamma / (gamma + own);
}

/**
 * A customer's value interval (in purchases, see {@link PurchaseInterval}) at population share `u`
 * ({@link populationShare}): linear between the interval at u = 0 and at u = 1. Each draw's ratio is
 * linear in u ((1 − u) + u·γₖ/γ), so the ends are exact; between them the interpolation is what
 * keeps one interval per distinct (x, t_x, T) instead of one per customer (the coverage bench
 * checks it on customers of every m_x).
 */
export function valueBounds(iv: PurchaseInterval, u: number): { low: number; high: number } {
  return {
    low: (1 - u) * iv.valueLowOwn + u * iv.valueLow,
    high: (1 - u) * iv.valueHighOwn + u * iv.valueHigh,
  };
}

const KEYS = { bgnbd: ['r', 'alpha', 'a', 'b'], 'pareto-nbd': ['r', 'alpha', 's', 'beta'] } as const;

function vectorOf(m: FittedPurchaseModel): number[] {
  return KEYS[m.model].map((k) => (m.params as unknown as Record<string, number>)[k]!);
}

function withVector(m: FittedPurchaseModel, v: readonly number[]): FittedPurchaseModel {
  const params = Object.fromEntries(KEYS[m.model].map((k, i) => [k, v[i]!]));
  return { model: m.model, params } as unknown as FittedPurchaseModel;
}

/** ∂ℓ/∂θ, θ = ln(params), of the model on the grouped histories. */
function logGradient(m: FittedPurchaseModel, data: TripletGroups): number[] {
  const v = vectorOf(m);
  let g: number[];
  if (m.model === 'bgnbd') {
    g = bgnbdLogLikelihoodGradient(m.params, {
      frequency: data.x,
      recency: data.tx,
      T: data.T,
      weight: data.weight,
      customers: data.customers,
    });
  } else {
    g = [0, 0, 0, 0];
    paretoNbdLogLikelihood(m.params, data, g);
  }
  return g.map((gi, i) => gi * v[i]!);
}

/**
 * Covariance of θ = ln(params) at the MLE: the inverse of the observed information −∂²ℓ/∂θ², whose
 * Hessian is taken by central differences (step 1e-4 in θ) of the analytic gradient and symmetrised.
 * Null when the information is not positive definite (a flat direction: a limit, not a maximum).
 */
export function logParameterCovariance(m: FittedPurchaseModel, data: TripletGroups): number[][] | null {
  return logCovarianceAt(vectorOf(m).map(Math.log), (theta) =>
    logGradient(withVector(m, theta.map(Math.exp)), data),
  );
}

/**
 * The inverse observed information at a maximum θ̂ of a log-likelihood on θ = ln(params), from its
 * gradient ∂ℓ/∂θ (`gradient`): the Hessian by central differences (step 1e-4), symmetrised, inverted
 * by Cholesky. Null when it is not positive definite or a log-scale variance exceeds 4 (a ridge
 * towards a limit, where the normal approximation is meaningless). Shared by the purchase models and
 * Gamma-Gamma (`GammaGammaFit.logCovariance`).
 */
export function logCovarianceAt(
  theta: readonly number[],
  gradient: (theta: number[]) => number[],
): number[][] | null {
  const n = theta.length;
  const h = 1e-4;
  const info = Array.from({ length: n }, () => new Array<number>(n).fill(0));
  for (let j = 0; j < n; j++) {
    const gu = gradient(theta.map((t, i) => (i === j ? t + h : t)));
    const gd = gradient(theta.map((t, i) => (i === j ? t - h : t)));
    for (let i = 0; i < n; i++) info[i]![j] = -(gu[i]! - gd[i]!) / (2 * h);
  }
  for (let i = 0; i < n; i++)
    for (let j = 0; j < i; j++) info[i]![j] = info[j]![i] = (info[i]![j]! + info[j]![i]!) / 2;
  const inverse = invertSpd(info);
  // A log-scale variance above 4 (a standard error of a factor e² ≈ 7.4 on the parameter) is a ridge
  // towards a limit (e.g. BG/NBD's a, b → ∞ when nobody drops out), not a usable normal approximation.
  if (!inverse || !inverse.every((row) => row.every(Number.isFinite))) return null;
  return inverse.every((row, i) => row[i]! > 0 && row[i]! <= MAX_LOG_VARIANCE) ? inverse : null;
}

const MAX_LOG_VARIANCE = 4;

/** Cholesky factor L (lower) of a symmetric positive-definite matrix, or null. */
export function cholesky(a: readonly (readonly number[])[]): number[][] | null {
  const n = a.length;
  const l = Array.from({ length: n }, () => new Array<number>(n).fill(0));
  for (let i = 0; i < n; i++) {
    for (let j = 0; j <= i; j++) {
      let sum = a[i]![j]!;
      for (let k = 0; k < j; k++) sum -= l[i]![k]! * l[j]![k]!;
      if (i === j) {
        if (!(sum > 0)) return null;
        l[i]![i] = Math.sqrt(sum);
      } else l[i]![j] = sum / l[j]![j]!;
    }
  }
  return l;
}

function invertSpd(a: number[][]): number[][] | null {
  const l = cholesky(a);
  if (!l) return null;
  const n = a.length;
  // Solve L Lᵀ X = I column by column.
  const out = Array.from({ length: n }, () => new Array<number>(n).fill(0));
  for (let c = 0; c < n; c++) {
    const y = new Array<number>(n).fill(0);
    for (let i = 0; i < n; i++) {
      let s = i === c ? 1 : 0;
      for (let k = 0; k < i; k++) s -= l[i]![k]! * y[k]!;
      y[i] = s / l[i]![i]!;
    }
    for (let i = n - 1; i >= 0; i--) {
      let s = y[i]!;
      for (let k = i + 1; k < n; k++) s -= l[k]![i]! * out[k]![c]!;
      out[i]![c] = s / l[i]![i]!;
    }
  }
  return out;
}

/** P(alive) and a draw of the expected purchases over t of an alive customer with history h. */
function aliveProbability(m: FittedPurchaseModel, h: History): number {
  return m.model === 'bgnbd'
    ? bgnbdProbabilityAlive(m.params, { frequency: h.x, recency: h.tx, T: h.T })
    : paretoNbdProbabilityAlive(m.params, h);
}

function aliveExpectedDraw(m: FittedPurchaseModel, h: History, t: number, v: Variates): number {
  const lambda = v.gamma(m.params.r + h.x) / (m.params.alpha + h.T);
  if (m.model === 'pareto-nbd') {
    // Remaining lifetime Exp(μ), μ ~ Gamma(s, β+T): E[purchases] = λ(1 − e^(−μt))/μ.
    const mu = v.gamma(m.params.s) / (m.params.beta + h.T);
    return mu * t < 1e-12 ? lambda * t : (lambda * -Math.expm1(-mu * t)) / mu;
  }
  // Dropout probability p ~ Beta(a, b+x): E[purchases] = (1 − e^(−λpt))/p.
  const ga = v.gamma(m.params.a);
  const p = ga / (ga + v.gamma(m.params.b + h.x));
  return p * lambda * t < 1e-12 ? lambda * t : -Math.expm1(-lambda * p * t) / p;
}

/**
 * 90% intervals (by default) for each history's expected purchases over the next t: the customer's own
 * uncertain state (dropped out or not, purchase rate, dropout rate: their posterior given the history)
 * and the fit's (parameter vectors drawn from the asymptotic normal of the MLE in log space,
 * {@link logParameterCovariance}). The expected purchases are 0 with probability pDead (an atom) and
 * continuous above, so the interval has exactly the level's probability: [0, q(level)] when the atom
 * exceeds the lower tail (1−level)/2, else [q((1−level)/2), q((1+level)/2)] (weighted quantiles of the
 * draws, each weighted by its parameter vector's P(alive)). Without a positive-definite covariance
 * only the customer's own uncertainty is drawn (`parameterUncertainty: false` in the result).
 * Deterministic for a seed.
 */
export function purchaseIntervals(
  fitted: FittedPurchaseModel,
  data: TripletGroups,
  histories: readonly History[],
  t: number,
  options: IntervalOptions = {},
): { intervals: PurchaseInterval[]; parameterUncertainty: boolean } {
  const v = variates(mulberry32(options.seed ?? 1));
  const draws = intervalDraws(fitted, data, options, v);
  const intervals = histories.map((h) => intervalOf(draws, h, t, v));
  return { intervals, parameterUncertainty: draws.parameterUncertainty };
}

/** The parameter vectors of {@link purchaseIntervals}, drawn once for an account's fit. */
export interface IntervalDraws {
  readonly models: readonly FittedPurchaseModel[];
  readonly parameterUncertainty: boolean;
  readonly level: number;
  readonly customerDraws: number;
  readonly spend: SpendShape | null;
  /**
   * Gamma-Gamma parameter vectors drawn from the asymptotic normal of its MLE on ln(p, q, γ), one per
   * purchase-model vector (the two fits are independent: different data, the model's assumption);
   * null without the spend fit's covariance, or without parameter uncertainty.
   */
  readonly spendModels: readonly { p: number; q: number; gamma: number }[] | null;
}

/**
 * Draws the parameter vectors of {@link purchaseIntervals} (or repeats the fit `parameterDraws` times
 * when the covariance is not positive definite or `parameterUncertainty` is false), from `v`, or from
 * the options' seed.
 */
export function intervalDraws(
  fitted: FittedPurchaseModel,
  data: TripletGroups,
  options: IntervalOptions = {},
  v: Variates = variates(mulberry32(options.seed ?? 1)),
): IntervalDraws {
  const K = options.parameterDraws ?? 20;
  const cov = options.parameterUncertainty === false ? null : logParameterCovariance(fitted, data);
  const l = cov ? cholesky(cov) : null;
  const theta = vectorOf(fitted).map(Math.log);
  const models: FittedPurchaseModel[] = [];
  for (let k = 0; k < K; k++) {
    if (!l) {
      models.push(fitted);
      continue;
    }
    const z = theta.map(() => v.normal());
    const draw = theta.map((ti, i) => ti + l[i]!.reduce((s, lij, j) => s + lij * z[j]!, 0));
    models.push(withVector(fitted, draw.map(Math.exp)));
  }
  const spend = options.spend ?? null;
  return {
    models,
    parameterUncertainty: l !== null,
    level: options.level ?? 0.9,
    customerDraws: options.customerDraws ?? 25,
    spend,
    spendModels:
      options.parameterUncertainty === false ? null : spendParameterDraws(spend, K, options.seed ?? 1),
  };
}

/**
 * K Gamma-Gamma parameter vectors from N(ln(p, q, γ), logCovariance), from a generator of their own
 * (seeded from `seed`): the purchase draws stay what they were without them.
 */
function spendParameterDraws(
  spend: SpendShape | null,
  K: number,
  seed: number,
): { p: number; q: number; gamma: number }[] | null {
  const l = spend?.logCovariance && spend.gamma !== undefined ? cholesky(spend.logCovariance) : null;
  if (!spend || !l) return null;
  const v = variates(mulberry32((seed ^ 0x9e3779b9) >>> 0));
  const theta = [spend.p, spend.q, spend.gamma!].map(Math.log);
  return Array.from({ length: K }, () => {
    const z = theta.map(() => v.normal());
    const [p, q, gamma] = theta.map((ti, i) =>
      Math.exp(ti + l[i]!.reduce((s, lij, j) => s + lij * z[j]!, 0)),
    ) as [number, number, number];
    return { p, q, gamma };
  });
}

/** One history's interval of its expected purchases over the next t under `draws`, the customer's draws from `v`. */
export function intervalOf(draws: IntervalDraws, h: History, t: number, v: Variates): PurchaseInterval {
  const { models, level } = draws;
  const K = models.length;
  const M = draws.customerDraws;
  const values = new Float64Array(K * M);
  const weights = new Float64Array(K * M);
  let pDead = 0;
  for (let k = 0; k < K; k++) {
    const m = models[k]!;
    const alive = aliveProbability(m, h);
    pDead += (1 - alive) / K;
    for (let j = 0; j < M; j++) {
      values[k * M + j] = aliveExpectedDraw(m, h, t, v);
      weights[k * M + j] = alive / (K * M);
    }
  }
  const purchases = atomQuantiles(values, weights, pDead, level);
  // Gamma-Gamma: given ν ~ Gamma(q + px, γ + x·m_x) (the customer's posterior), the spend per purchase
  // p/ν over its expectation p(γ + x·m_x)/(px + q − 1) is (px + q − 1)/G, G ~ Gamma(q + px, 1): it
  // depends on x only, so the value interval is one per history like the purchase one. The spend is
  // independent of the purchase process (the model's assumption): one ratio per draw, drawn after
  // the purchase draws so that those stay what they were.
  const spend = draws.spend;
  const shape = spend ? spend.q + spend.p * h.x : NaN;
  if (!spend || !(shape > 1))
    return {
      ...purchases,
      pDead,
      valueLow: purchases.low,
      valueHigh: purchases.high,
      valueLowOwn: purchases.low,
      valueHighOwn: purchases.high,
    };
  const fits = draws.spendModels;
  if (!fits) {
    for (let i = 0; i < values.length; i++) values[i] = (values[i]! * (shape - 1)) / v.gamma(shape);
    const value = atomQuantiles(values, weights, pDead, level);
    const same = { valueLow: value.low, valueHigh: value.high };
    return { ...purchases, pDead, ...same, valueLowOwn: value.low, valueHighOwn: value.high };
  }
  // The fit's uncertainty: under draw k the spend per purchase is p_k(γ_k + x·m_x)/G, G ~ Gamma(q_k +
  // p_k·x, 1), over the point expectation p(γ + x·m_x)/(px + q − 1): (p_k/p)(px + q − 1)/G ×
  // ((1 − u) + u·γ_k/γ), u the population's share γ/(γ + x·m_x). Both ends of u are drawn here.
  const own = new Float64Array(values.length);
  for (let k = 0; k < K; k++) {
    const f = fits[k]!;
    const scale = (f.p / spend.p) * (shape - 1);
    const drawShape = f.q + f.p * h.x;
    const g = f.gamma / spend.gamma!;
    for (let j = 0; j < M; j++) {
      const i = k * M + j;
      own[i] = (values[i]! * scale) / v.gamma(drawShape);
      values[i] = own[i] * g;
    }
  }
  const population = atomQuantiles(values, weights, pDead, level);
  const ownValue = h.x > 0 ? atomQuantiles(own, weights, pDead, level) : population;
  return {
    ...purchases,
    pDead,
    valueLow: population.low,
    valueHigh: population.high,
    valueLowOwn: ownValue.low,
    valueHighOwn: ownValue.high,
  };
}

/**
 * The central `level` interval of a distribution with an atom of `pDead` at 0 and weighted draws above
 * it: [0, q(level)] when the atom exceeds the lower tail, else the tails' weighted quantiles.
 */
function atomQuantiles(
  values: Float64Array,
  weights: Float64Array,
  pDead: number,
  level: number,
): { low: number; high: number } {
  const lowTail = (1 - level) / 2;
  // A draw that overflowed (a NaN sampler draw, a NaN P(alive)) has no place in the order: the
  // interval is NaN, which the scorer's finiteness check turns into its fallback.
  if (!Number.isFinite(pDead)) return { low: NaN, high: NaN };
  for (let i = 0; i < values.length; i++) if (Number.isNaN(values[i]!)) return { low: NaN, high: NaN };
  const order = new Uint32Array(values.length);
  for (let i = 0; i < order.length; i++) order[i] = i;
  order.sort((a, b) => values[a]! - values[b]!);
  const quantile = (p: number): number => {
    // The atom at 0 holds pDead; the draws hold the rest, in increasing order.
    if (p <= pDead) return 0;
    let cum = pDead;
    for (const i of order) {
      cum += weights[i]!;
      if (cum >= p) return values[i]!;
    }
    return values[order[order.length - 1]!]!;
  };
  return pDead > lowTail
    ? { low: 0, high: quantile(level) }
    : { low: quantile(lowTail), high: quantile(1 - lowTail) };
}
