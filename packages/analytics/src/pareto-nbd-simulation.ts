import type { BgNbdParams } from './bgnbd.js';
import type { ParetoNbdParams } from './pareto-nbd.js';
import { mulberry32 } from './prng.js';
import { variates } from './random-variates.js';

/** One simulated customer: the calibration history and the purchases in the holdout that followed. */
export interface SimulatedHistory {
  x: number;
  tx: number;
  T: number;
  /** Purchases in (T, T + holdout]. */
  holdoutPurchases: number;
  /**
   * The customer's true expected purchases in (T, T + holdout] given their own rates and whether they
   * are alive at T (what a perfect model would predict): the target of the intervals' coverage.
   */
  latentExpected: number;
}

/** Options of {@link simulateParetoNbd}. */
export interface ParetoNbdSimulation {
  params: ParetoNbdParams;
  customers: number;
  /** Each customer's T is uniform on [minT, maxT] (acquisition spread over the calibration period). */
  minT: number;
  maxT: number;
  /** Length of the holdout period after T. */
  holdout: number;
  seed: number;
}

/**
 * Draws customers from the Pareto/NBD generative story: λ ~ Gamma(r, α), μ ~ Gamma(s, β), lifetime
 * τ ~ Exp(μ) from the first purchase at 0, purchases a Poisson process of rate λ while alive. Returns
 * the (x, t_x, T) of each and its purchase count in the holdout. Deterministic for a seed.
 */
export function simulateParetoNbd(options: ParetoNbdSimulation): SimulatedHistory[] {
  const v = variates(mulberry32(options.seed));
  const { r, alpha, s, beta } = options.params;
  const out: SimulatedHistory[] = [];
  for (let i = 0; i < options.customers; i++) {
    const T = options.minT + (options.maxT - options.minT) * v.uniform();
    const lambda = v.gamma(r) / alpha;
    const mu = v.gamma(s) / beta;
    const death = -Math.log(1 - v.uniform()) / mu;
    // Calibration: purchase times as a Poisson process on (0, min(death, T)].
    const calEnd = Math.min(death, T);
    let x = 0;
    let tx = 0;
    for (let t = -Math.log(1 - v.uniform()) / lambda; t <= calEnd; t += -Math.log(1 - v.uniform()) / lambda) {
      x++;
      tx = t;
    }
    const aliveInHoldout = Math.max(0, Math.min(death, T + options.holdout) - T);
    // Memoryless lifetime: alive at T, the rest is Exp(μ), so E = λ(1 − e^(−μ·holdout))/μ.
    const latentExpected = death > T ? (lambda * -Math.expm1(-mu * options.holdout)) / mu : 0;
    out.push({ x, tx, T, holdoutPurchases: v.poisson(lambda * aliveInHoldout), latentExpected });
  }
  return out;
}

/** Options of {@link simulateBgNbd}: as {@link ParetoNbdSimulation}, with BG/NBD parameters. */
export interface BgNbdSimulation extends Omit<ParetoNbdSimulation, 'params'> {
  params: BgNbdParams;
}

/**
 * Draws customers from the BG/NBD story: λ ~ Gamma(r, α), p ~ Beta(a, b); purchases a Poisson process
 * of rate λ from the first purchase at 0, and after each repeat purchase the customer drops out with
 * probability p. `latentExpected` is (1 − e^(−λp·holdout))/p when still active at T, else 0.
 */
export function simulateBgNbd(options: BgNbdSimulation): SimulatedHistory[] {
  const v = variates(mulberry32(options.seed));
  const { r, alpha, a, b } = options.params;
  const out: SimulatedHistory[] = [];
  for (let i = 0; i < options.customers; i++) {
    const T = options.minT + (options.maxT - options.minT) * v.uniform();
    const lambda = v.gamma(r) / alpha;
    const ga = v.gamma(a);
    const p = ga / (ga + v.gamma(b));
    let x = 0;
    let tx = 0;
    let holdoutPurchases = 0;
    // The time of the purchase after which the customer dropped out (∞: never, within the window).
    let dropAt = Infinity;
    for (let t = -Math.log(1 - v.uniform()) / lambda; t <= T + options.holdout;) {
      if (t <= T) {
        x++;
        tx = t;
      } else holdoutPurchases++;
      if (v.uniform() < p) {
        dropAt = t;
        break;
      }
      t += -Math.log(1 - v.uniform()) / lambda;
    }
    out.push({
      x,
      tx,
      T,
      holdoutPurchases,
      latentExpected: dropAt > T ? -Math.expm1(-lambda * p * options.holdout) / p : 0,
    });
  }
  return out;
}
