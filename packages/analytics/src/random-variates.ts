/** Random variates from a uniform source (a seeded `mulberry32`, so every simulation is reproducible). */
export interface Variates {
  uniform: () => number;
  normal: () => number;
  /** Gamma(shape k, rate 1). */
  gamma: (k: number) => number;
  /** Poisson(mean). */
  poisson: (mean: number) => number;
}

/** Means above this are drawn from the normal approximation (see `poisson`). */
const POISSON_EXACT_MAX = 1e6;

/**
 * Standard samplers over `u`: Box–Muller normals; Marsaglia & Tsang (2000) gammas, with shape < 1 via
 * G(k) = G(k+1)·U^(1/k); Poisson by multiplying uniforms below a mean of 30 and, above, as the sum
 * of Poisson(30) draws plus a remainder (exact, and the cost grows only with mean/30; past a mean of
 * a million, normal). A non-finite shape or mean gives NaN (never a loop without end).
 */
export function variates(u: () => number): Variates {
  const normal = (): number => Math.sqrt(-2 * Math.log(1 - u())) * Math.cos(2 * Math.PI * u());
  const gamma = (k: number): number => {
    // A shape that is not a finite positive number (a parameter draw that overflowed) has no draw;
    // the rejection loop below would never accept one.
    if (k === 0) return 0; // the limit k → 0⁺ (a draw that underflowed)
    if (!(k > 0 && k < Infinity)) return NaN;
    // The spread is 1/√k of the mean: 1e-6 at 1e12, and Marsaglia–Tsang's acceptance test loses
    // its precision long before the shape reaches infinity (d − d·v cancels): the mean itself.
    if (k > 1e12) return k;
    if (k < 1) return gamma(k + 1) * Math.pow(1 - u(), 1 / k);
    const d = k - 1 / 3;
    const c = 1 / Math.sqrt(9 * d);
    for (;;) {
      const z = normal();
      const v = (1 + c * z) ** 3;
      if (v > 0 && Math.log(1 - u()) < 0.5 * z * z + d - d * v + d * Math.log(v)) return d * v;
    }
  };
  const smallPoisson = (mean: number): number => {
    const limit = Math.exp(-mean);
    let k = 0;
    let prod = 1 - u();
    while (prod > limit) {
      k++;
      prod *= 1 - u();
    }
    return k;
  };
  const poisson = (mean: number): number => {
    if (Number.isNaN(mean) || mean === Infinity) return NaN;
    if (!(mean > 0)) return 0;
    // The exact sum costs mean/30 steps: past a million, the normal approximation (its relative error
    // there is below 1e-3 of a standard deviation) instead of a loop that would seem to hang.
    if (mean > POISSON_EXACT_MAX) return Math.max(0, Math.round(mean + Math.sqrt(mean) * normal()));
    let k = 0;
    let rest = mean;
    while (rest > 30) {
      k += smallPoisson(30);
      rest -= 30;
    }
    return k + smallPoisson(rest);
  };
  return { uniform: u, normal, gamma, poisson };
}
