/** Random variates from a uniform source (a seeded `mulberry32`, so every simulation is reproducible). */
export interface Variates {
  uniform: () => number;
  normal: () => number;
  /** Gamma(shape k, rate 1). */
  gamma: (k: number) => number;
  /** Poisson(mean). */
  poisson: (mean: number) => number;
}

/**
 * Standard samplers over `u`: Box–Muller normals; Marsaglia & Tsang (2000) gammas, with shape < 1 via
 * G(k) = G(k+1)·U^(1/k); Poisson by multiplying uniforms below a mean of 30 and, above, as the sum
 * of Poisson(30) draws plus a remainder (exact, and the cost grows only with mean/30).
 */
export function variates(u: () => number): Variates {
  const normal = (): number => Math.sqrt(-2 * Math.log(1 - u())) * Math.cos(2 * Math.PI * u());
  const gamma = (k: number): number => {
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
    if (!(mean > 0)) return 0;
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
