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
    out.push({ x, tx, T, holdoutPurchases: v.poisson(lambda * aliveInHoldout) });
  }
  return out;
}
