import type { BgNbdParams } from './bgnbd.js';
import { bgnbdConditionalExpectedPurchases } from './bgnbd-predict.js';
import type { GammaGammaParams } from './gamma-gamma.js';
import { gammaGammaExpectedSpend } from './gamma-gamma.js';
import type { RfmRow } from './rfm-groups.js';
import type { SpendRow } from './gamma-gamma.js';
import { unitsPerYear } from './time.js';
import type { TimeUnit } from './time.js';

/** Options of the CLV functions. */
export interface ClvOptions {
  /** Length of the projection, in the model's time unit. */
  horizon: number;
  /** Annual discount rate, e.g. 0.1 for 10% a year. */
  discountRate: number;
  /** Unit of `horizon` and of the model (default weeks). */
  timeUnit?: TimeUnit;
  /** Length of one discounting step in the model's unit (default one month: a twelfth of a year). */
  step?: number;
}

/**
 * Discounted expected purchases over the horizon:
 * Σ_i (E[Y(t_i)] − E[Y(t_{i−1})]) · (1 + d)^(−t_i / year), t_i = min(i·step, horizon), t_0 = 0.
 * Purchases expected during step i are discounted to the end of that step (a slightly conservative
 * choice; with monthly steps the difference from continuous discounting is under d/24).
 * `cumulative(t)` must return the expected number of purchases in (0, t].
 */
export function discountedPurchases(cumulative: (t: number) => number, options: ClvOptions): number {
  const year = unitsPerYear(options.timeUnit ?? 'weeks');
  const step = options.step ?? year / 12;
  if (!(options.horizon >= 0) || !(step > 0) || !(options.discountRate > -1)) {
    throw new RangeError('CLV needs horizon ≥ 0, step > 0 and discountRate > −1');
  }
  let total = 0;
  let previous = 0;
  const steps = Math.ceil(options.horizon / step - 1e-9);
  for (let i = 1; i <= steps; i++) {
    const t = Math.min(i * step, options.horizon);
    const current = cumulative(t);
    total += (current - previous) * Math.pow(1 + options.discountRate, -t / year);
    previous = current;
  }
  return total;
}

/**
 * Customer lifetime value over the horizon from BG/NBD and Gamma-Gamma (Fader, Hardie & Lee 2005,
 * "RFM and CLV"): E(M | p, q, γ, m_x, x) × discounted E[Y(t) | r, α, a, b, x, t_x, T] (see
 * {@link discountedPurchases}). The spend model's independence assumption (spend unrelated to
 * frequency) is what allows the product.
 */
export function bgnbdGammaGammaClv(
  bgnbd: BgNbdParams,
  gammaGamma: GammaGammaParams,
  customer: RfmRow & SpendRow,
  options: ClvOptions,
): number {
  const spend = gammaGammaExpectedSpend(gammaGamma, customer);
  return spend * discountedPurchases((t) => bgnbdConditionalExpectedPurchases(bgnbd, customer, t), options);
}
