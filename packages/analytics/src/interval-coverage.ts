import { fitBgNbd } from './bgnbd.js';
import { fitGammaGamma, gammaGammaExpectedSpend } from './gamma-gamma.js';
import type { GammaGammaParams } from './gamma-gamma.js';
import type { BgNbdParams } from './bgnbd.js';
import { populationShare, purchaseIntervals, valueBounds } from './intervals.js';
import type { FittedPurchaseModel } from './intervals.js';
import { fitParetoNbd, groupTriplets } from './pareto-nbd.js';
import type { ParetoNbdParams } from './pareto-nbd.js';
import { simulateBgNbd, simulateParetoNbd } from './pareto-nbd-simulation.js';
import { mulberry32 } from './prng.js';
import { variates } from './random-variates.js';

/** One coverage experiment: customers drawn from known parameters, the model refitted on them. */
export interface CoverageScenario {
  model: 'bgnbd' | 'pareto-nbd';
  params: BgNbdParams | ParetoNbdParams;
  customers: number;
  /** Calibration windows T uniform on [minT, maxT] (weeks); durations rounded to days. */
  minT: number;
  maxT: number;
  horizon: number;
  seed: number;
  /** Gamma-Gamma spend of the simulated purchases (default CDNOW's fit: p 6.25, q 3.74, γ 15.44). */
  spend?: GammaGammaParams;
  /** Whether the value interval draws the spend fit's parameters (default true; false: point estimate). */
  spendParameterUncertainty?: boolean;
}

/** CDNOW's Gamma-Gamma fit (FHL 2005), the default spend of a scenario. */
export const CDNOW_SPEND: GammaGammaParams = { p: 6.25, q: 3.74, gamma: 15.44 };

/** What {@link intervalCoverage} measured. */
export interface CoverageResult {
  customers: number;
  /** Share of customers whose true expected purchases lie in their 90% interval. */
  coverage: number;
  /**
   * The same with the atom at 0 counted at the interval's probability: a customer whose P(dropped out)
   * is at least 0.9 gets [0, 0], which holds probability P(dropped out) > 0.9 by necessity (an atom
   * cannot be split); such a customer counts as covered with probability 0.9/P(dropped out) when their
   * truth is 0 (the randomised coverage of a discrete interval). This is the figure held to 90% ± 2.
   */
  atomAdjustedCoverage: number;
  /** Customers given [0, 0], and the plain coverage of the others. */
  certainlyLapsed: number;
  coverageOfOthers: number;
  /** Binomial standard error of the adjusted coverage. */
  standardError: number;
  /** Mean interval width, and the share of customers with a [0, q] interval (likely dropped out). */
  meanWidth: number;
  zeroLow: number;
  fitConverged: boolean;
  parameterUncertainty: boolean;
  /**
   * The lifetime value's interval (undiscounted): the customer's true expected purchases times their
   * true mean spend p/ν inside E[spend | x, m_x] × [valueLow, valueHigh], the spend model refitted on
   * the simulated repeat purchases. Atom-adjusted as `atomAdjustedCoverage`.
   */
  valueCoverage: number;
  valueMeanWidth: number;
  /** Whether the spend fit's parameter uncertainty was drawn (its information positive definite). */
  spendParameterUncertainty: boolean;
  ms: number;
}

/**
 * The coverage check of `purchaseIntervals`: simulates customers (`simulateParetoNbd` /
 * `simulateBgNbd`), fits the model by maximum likelihood on their (x, t_x, T), computes each
 * customer's 90% interval for the expected purchases over the horizon, and counts how often it holds
 * the customer's true expected purchases (known to the simulation). Deterministic for a seed.
 */
export function intervalCoverage(s: CoverageScenario): CoverageResult {
  const started = performance.now();
  const options = { customers: s.customers, minT: s.minT, maxT: s.maxT, holdout: s.horizon, seed: s.seed };
  const sim =
    s.model === 'pareto-nbd'
      ? simulateParetoNbd({ ...options, params: s.params as ParetoNbdParams })
      : simulateBgNbd({ ...options, params: s.params as BgNbdParams });
  // Durations in whole days (as the recompute measures them), in weeks.
  const day = (w: number) => Math.round(w * 7) / 7;
  const rows = sim.map((c) => ({ x: c.x, tx: day(c.tx), T: day(c.T) }));
  const groups = groupTriplets(rows);
  let fitted: FittedPurchaseModel;
  let fitConverged: boolean;
  if (s.model === 'pareto-nbd') {
    const fit = fitParetoNbd(groups);
    fitted = { model: 'pareto-nbd', params: fit.params };
    fitConverged = fit.converged;
  } else {
    const fit = fitBgNbd({
      frequency: groups.x,
      recency: groups.tx,
      T: groups.T,
      weight: groups.weight,
      customers: groups.customers,
    });
    fitted = { model: 'bgnbd', params: fit.params };
    fitConverged = fit.converged;
  }
  // One interval per distinct history.
  const distinct = Array.from(groups.weight, (_, i) => ({
    x: groups.x[i]!,
    tx: groups.tx[i]!,
    T: groups.T[i]!,
  }));
  // Spend: ν ~ Gamma(q, γ) per customer, each repeat purchase's value Gamma(p, ν); m_x their mean.
  const gg = s.spend ?? CDNOW_SPEND;
  const sv = variates(mulberry32(s.seed + 2));
  const nu = sim.map(() => sv.gamma(gg.q) / gg.gamma);
  const mx = sim.map((c, i) => {
    let sum = 0;
    for (let j = 0; j < c.x; j++) sum += sv.gamma(gg.p) / nu[i]!;
    return c.x > 0 ? sum / c.x : 0;
  });
  const spendFit = fitGammaGamma(sim.map((c, i) => ({ frequency: c.x, monetaryValue: mx[i]! })));
  const { intervals, parameterUncertainty } = purchaseIntervals(fitted, groups, distinct, s.horizon, {
    seed: s.seed + 1,
    spend:
      s.spendParameterUncertainty === false
        ? { p: spendFit.params.p, q: spendFit.params.q }
        : {
            ...spendFit.params,
            logCovariance: spendFit.logCovariance ?? null,
          },
  });
  const at = new Map(distinct.map((h, i) => [`${h.x}|${h.tx}|${h.T}`, i]));
  let covered = 0;
  let adjusted = 0;
  let lapsed = 0;
  let coveredOthers = 0;
  let width = 0;
  let zeroLow = 0;
  let valueAdjusted = 0;
  let valueWidth = 0;
  rows.forEach((h, i) => {
    const iv = intervals[at.get(`${h.x}|${h.tx}|${h.T}`)!]!;
    const truth = sim[i]!.latentExpected;
    const inside = truth >= iv.low && truth <= iv.high;
    if (inside) covered++;
    if (iv.high === 0) {
      lapsed++;
      if (inside) adjusted += Math.min(1, 0.9 / iv.pDead);
    } else if (inside) {
      adjusted++;
      coveredOthers++;
    }
    width += iv.high - iv.low;
    if (iv.low === 0) zeroLow++;
    const spend = gammaGammaExpectedSpend(spendFit.params, { frequency: h.x, monetaryValue: mx[i]! });
    const value = truth * (gg.p / nu[i]!);
    const bounds = valueBounds(iv, populationShare(spendFit.params.gamma, h.x, mx[i]!));
    const [low, high] = [spend * bounds.low, spend * bounds.high];
    if (value >= low && value <= high) valueAdjusted += high === 0 ? Math.min(1, 0.9 / iv.pDead) : 1;
    valueWidth += high - low;
  });
  const n = rows.length;
  const coverage = adjusted / n;
  return {
    customers: n,
    coverage: covered / n,
    atomAdjustedCoverage: coverage,
    certainlyLapsed: lapsed / n,
    coverageOfOthers: n > lapsed ? coveredOthers / (n - lapsed) : NaN,
    standardError: Math.sqrt((coverage * (1 - coverage)) / n),
    meanWidth: width / n,
    zeroLow: zeroLow / n,
    fitConverged,
    parameterUncertainty,
    valueCoverage: valueAdjusted / n,
    valueMeanWidth: valueWidth / n,
    spendParameterUncertainty: s.spendParameterUncertainty !== false && !!spendFit.logCovariance,
    ms: performance.now() - started,
  };
}
