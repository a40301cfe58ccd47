import { logCovarianceAt } from './intervals.js';
import { maximizeInLogSpace } from './mle.js';
import { digamma, logGamma } from './special-functions.js';

/**
 * Gamma-Gamma spend parameters (Fader, Hardie & Lee 2005, "RFM and CLV: Using iso-value curves"):
 * a transaction's value is Gamma(p, ν), and ν ~ Gamma(q, γ) across customers.
 */
export interface GammaGammaParams {
  p: number;
  q: number;
  gamma: number;
}

/** A repeat buyer as the spend model sees them: x repeat transactions with mean value m_x. */
export interface SpendRow {
  /** x > 0: number of repeat transactions. */
  frequency: number;
  /** m_x > 0: mean value of those transactions. */
  monetaryValue: number;
}

/** Result of {@link fitGammaGamma}. */
export interface GammaGammaFit {
  params: GammaGammaParams;
  logLikelihood: number;
  converged: boolean;
  iterations: number;
  customers: number;
  /**
   * Covariance of ln(p, q, γ) at the MLE (the inverse observed information, `logCovarianceAt`): the
   * fit's own uncertainty, drawn into the lifetime value's interval. Null when the information is
   * not positive definite (a ridge) or the fit did not converge.
   */
  logCovariance?: number[][] | null;
}

/**
 * Gamma-Gamma log-likelihood of mean spends: for each repeat buyer, z̄ = m_x given ν is Gamma(px, νx),
 * and integrating ν out gives
 * ℓ = ln Γ(px+q) − ln Γ(px) − ln Γ(q) + q ln γ + (px−1) ln m_x + px ln x − (px+q) ln(γ + x·m_x).
 * Rows with x = 0 or m_x ≤ 0 carry no spend information and are skipped.
 */
export function gammaGammaLogLikelihood(params: GammaGammaParams, rows: Iterable<SpendRow>): number {
  return evaluate(params, usable(rows));
}

/**
 * The usable spend rows (x > 0, m_x > 0) as two columns, in their original order. Columns rather than
 * row objects: a million-customer account has hundreds of thousands of repeat buyers, and the fit only
 * ever reads the two numbers.
 */
interface SpendColumns {
  readonly x: Float64Array;
  readonly m: Float64Array;
  /** How many customers each row stands for (absent: one each). */
  readonly w?: Float64Array;
}

/** Gradient ∂ℓ/∂(p, q, γ) of {@link gammaGammaLogLikelihood}. */
export function gammaGammaLogLikelihoodGradient(
  params: GammaGammaParams,
  rows: Iterable<SpendRow>,
): number[] {
  const gradient = [0, 0, 0];
  evaluate(params, usable(rows), gradient);
  return gradient;
}

/**
 * ℓ and, when asked, its gradient:
 * ∂p = Σ x·(ψ(px+q) − ψ(px) + ln m_x + ln x − ln(γ + x·m_x)),
 * ∂q = Σ ψ(px+q) − ψ(q) + ln γ − ln(γ + x·m_x),  ∂γ = Σ q/γ − (px+q)/(γ + x·m_x).
 */
function evaluate(params: GammaGammaParams, data: SpendColumns, gradient?: number[]): number {
  return compileGammaGamma(data)(params, gradient);
}

/**
 * Prepares spend columns for repeated evaluations: ln m_x and ln x once per fit, and the Γ and ψ terms
 * that depend on x only once per distinct x and evaluation (a replenishment account's repeat buyers
 * share a few dozen values of x), leaving one log per buyer. Every term is the value the direct
 * formula computes, summed in the same order, so the result is the same to the bit.
 */
function compileGammaGamma(data: SpendColumns): (params: GammaGammaParams, gradient?: number[]) => number {
  const { x: xs, m: ms, w: ws } = data;
  const n = xs.length;
  const slot = new Uint32Array(n);
  const distinct: number[] = [];
  const seen = new Map<number, number>();
  const lnM = new Float64Array(n);
  for (let i = 0; i < n; i++) {
    const x = xs[i] as number;
    let k = seen.get(x);
    if (k === undefined) seen.set(x, (k = distinct.push(x) - 1));
    slot[i] = k;
    lnM[i] = Math.log(ms[i] as number);
  }
  const lnX = Float64Array.from(distinct, (x) => Math.log(x));
  const lgPxQ = new Float64Array(distinct.length);
  const lgPx = new Float64Array(distinct.length);
  const psiPxQ = new Float64Array(distinct.length);
  const psiPx = new Float64Array(distinct.length);
  return ({ p, q, gamma }, gradient) => {
    if (!(p > 0 && q > 0 && gamma > 0)) return NaN;
    const lgq = logGamma(q);
    const lnGamma = Math.log(gamma);
    const psiQ = gradient ? digamma(q) : 0;
    for (let k = 0; k < distinct.length; k++) {
      const px = p * (distinct[k] as number);
      lgPxQ[k] = logGamma(px + q);
      lgPx[k] = logGamma(px);
      if (gradient) {
        psiPxQ[k] = digamma(px + q);
        psiPx[k] = digamma(px);
      }
    }
    let [total, dp, dq, dg] = [0, 0, 0, 0];
    for (let i = 0; i < n; i++) {
      const k = slot[i] as number;
      const x = xs[i] as number;
      const m = ms[i] as number;
      const px = p * x;
      const lm = lnM[i] as number;
      const lx = lnX[k] as number;
      const lnDen = Math.log(gamma + x * m);
      const term =
        (lgPxQ[k] as number) -
        (lgPx[k] as number) -
        lgq +
        q * lnGamma +
        (px - 1) * lm +
        px * lx -
        (px + q) * lnDen;
      // Unweighted rows add the term itself (not 1 × term) so that their sums stay the same to the bit.
      const w = ws ? (ws[i] as number) : 1;
      total += ws ? w * term : term;
      if (gradient) {
        const psi = psiPxQ[k] as number;
        const gp = x * (psi - (psiPx[k] as number) + lm + lx - lnDen);
        const gq = psi - psiQ + lnGamma - lnDen;
        const gg = q / gamma - (px + q) / (gamma + x * m);
        dp += ws ? w * gp : gp;
        dq += ws ? w * gq : gq;
        dg += ws ? w * gg : gg;
      }
    }
    if (gradient) [gradient[0], gradient[1], gradient[2]] = [dp, dq, dg];
    return total;
  };
}

/**
 * Fits Gamma-Gamma by maximum likelihood (BFGS with the analytic gradient on ln p, ln q, ln γ; see
 * `maximizeInLogSpace`) on the repeat buyers (x > 0, m_x > 0). Starts from p = 1, q = 2, γ = mean m_x
 * (so that the implied mean spend pγ/(q−1) equals the sample mean). Throws when no row is usable.
 */
export function fitGammaGamma(
  rows: Iterable<SpendRow>,
  options: { maxIterations?: number } = {},
): GammaGammaFit {
  return fitUsable(usable(rows), options);
}

/**
 * {@link fitGammaGamma} over columns (row i: x = frequency[i], m_x = monetaryValue[i]), for callers that
 * hold their customers as typed arrays; the same rows give the same fit, bit for bit.
 *
 * With `weight`, row i stands for weight[i] customers with that same (x, m_x): the likelihood depends on
 * a customer through (x, m_x) only, so identical customers grouped into one weighted row give the fit
 * of the ungrouped rows (to rounding: the sums are taken in another order). A streamed recompute
 * groups its repeat buyers this way.
 */
export function fitGammaGammaColumns(
  frequency: ArrayLike<number>,
  monetaryValue: ArrayLike<number>,
  options: { maxIterations?: number; weight?: ArrayLike<number> } = {},
): GammaGammaFit {
  return fitUsable(usableColumns(frequency, monetaryValue, options.weight), options);
}

function fitUsable(data: SpendColumns, options: { maxIterations?: number }): GammaGammaFit {
  const n = data.x.length;
  if (n === 0) throw new RangeError('Gamma-Gamma needs at least one repeat buyer with positive spend');
  let sum = 0;
  let customers = 0;
  for (let i = 0; i < n; i++) {
    const w = data.w ? (data.w[i] as number) : 1;
    sum += data.w ? w * (data.m[i] as number) : (data.m[i] as number);
    customers += w;
  }
  const meanSpend = sum / customers;
  const ll = compileGammaGamma(data);
  const result = maximizeInLogSpace(
    ([p, q, gamma], gradient) => ll({ p, q, gamma } as GammaGammaParams, gradient),
    [1, 2, meanSpend],
    options.maxIterations,
  );
  const [p, q, gamma] = result.params as [number, number, number];
  // Six gradient evaluations over the (grouped) rows: cheap beside the fit's iterations.
  const logCovariance = result.converged
    ? logCovarianceAt([p, q, gamma].map(Math.log), (theta) => {
        const [tp, tq, tg] = theta.map(Math.exp) as [number, number, number];
        const g = [0, 0, 0];
        ll({ p: tp, q: tq, gamma: tg }, g);
        return [g[0]! * tp, g[1]! * tq, g[2]! * tg];
      })
    : null;
  return {
    params: { p, q, gamma },
    logLikelihood: result.logLikelihood,
    converged: result.converged,
    iterations: result.iterations,
    customers,
    logCovariance,
  };
}

/**
 * Conditional expected mean transaction value E(M | p, q, γ, m_x, x) = p(γ + x·m_x)/(px + q − 1): a
 * weighted average of the population mean pγ/(q−1) (weight (q−1)/(px+q−1)) and the customer's own m_x
 * (weight px/(px+q−1)). For x = 0 it is the population mean. Requires px + q > 1 (q > 1 when x = 0);
 * returns NaN otherwise (the mean does not exist).
 */
export function gammaGammaExpectedSpend(params: GammaGammaParams, row: SpendRow): number {
  const { p, q, gamma } = params;
  const x = row.frequency;
  const m = x > 0 ? row.monetaryValue : 0;
  const denominator = p * x + q - 1;
  if (!(denominator > 0)) return NaN;
  return (p * (gamma + x * m)) / denominator;
}

function usable(rows: Iterable<SpendRow>): SpendColumns {
  const x: number[] = [];
  const m: number[] = [];
  for (const row of rows) {
    if (row.frequency > 0 && row.monetaryValue > 0) {
      x.push(row.frequency);
      m.push(row.monetaryValue);
    }
  }
  return { x: Float64Array.from(x), m: Float64Array.from(m) };
}

function usableColumns(
  frequency: ArrayLike<number>,
  monetaryValue: ArrayLike<number>,
  weight?: ArrayLike<number>,
): SpendColumns {
  if (weight && weight.length !== frequency.length) throw new RangeError('weights and rows differ in length');
  const keep = (i: number) =>
    frequency[i]! > 0 && monetaryValue[i]! > 0 && (!weight || (weight[i]! > 0 && Number.isFinite(weight[i])));
  let n = 0;
  for (let i = 0; i < frequency.length; i++) if (keep(i)) n++;
  const x = new Float64Array(n);
  const m = new Float64Array(n);
  const w = weight ? new Float64Array(n) : undefined;
  for (let i = 0, k = 0; i < frequency.length; i++) {
    if (keep(i)) {
      x[k] = frequency[i]!;
      m[k] = monetaryValue[i]!;
      if (w) w[k] = weight![i]!;
      k++;
    }
  }
  return w ? { x, m, w } : { x, m };
}
