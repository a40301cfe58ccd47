/** Lifecycle state of a customer (see {@link lifecycleState}). */
export type LifecycleState = 'Stable' | 'Slowing' | 'Overdue' | 'Lapsed';

/** The states in a fixed order: column results store a state as its index here. */
export const LIFECYCLE_STATES: readonly LifecycleState[] = Object.freeze([
  'Stable',
  'Slowing',
  'Overdue',
  'Lapsed',
]);

/**
 * Gaps of silence after which a customer is Overdue: with exponential waiting times of mean g, an
 * active customer stays silent longer than g·ln 20 with probability e^(−ln 20) = 5%, the same 5% level
 * the lift tests use.
 */
export const OVERDUE_GAPS = Math.log(20);

/** Inputs of {@link lifecycleState}, all durations in the same unit. */
export interface LifecycleInput {
  /** P(alive) from the model in use. */
  pAlive: number;
  /** s: time since the last purchase. */
  elapsed: number;
  /** g: expected time between purchases (from the model, see docs/analytics.md). */
  expectedGap: number;
}

/**
 * Lifecycle state from P(alive) and the silence ρ = s/g measured in expected gaps:
 * - Stable: ρ ≤ 1, the next purchase is not yet due (an active customer would still be silent with
 *   probability ≥ e^(−1) ≈ 37%);
 * - Lapsed: ρ > 1 and P(alive) < ½, i.e. past due and more likely gone than active (the Bayes decision
 *   with equal costs). Not before ρ = 1: before the purchase is due the silence carries little evidence;
 * - Overdue: ρ > ln 20, an active customer would have bought with 95% probability, yet P(alive) ≥ ½;
 * - Slowing: 1 < ρ ≤ ln 20 and P(alive) ≥ ½, past due but a silence this long is still common.
 */
export function lifecycleState(input: LifecycleInput): LifecycleState {
  const rho = input.elapsed / input.expectedGap;
  if (!(rho > 1)) return 'Stable';
  if (input.pAlive < 0.5) return 'Lapsed';
  return rho > OVERDUE_GAPS ? 'Overdue' : 'Slowing';
}

/** Churn risk = 1 − P(alive), clamped to [0, 1]: the probability the customer has already dropped out. */
export function churnRisk(pAlive: number): number {
  return Math.min(1, Math.max(0, 1 - pAlive));
}
