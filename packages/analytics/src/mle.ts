import { bfgs } from './bfgs.js';
import { nelderMead } from './nelder-mead.js';

/** Result of {@link maximizeInLogSpace}. */
export interface LogSpaceFit {
  /** Maximising parameters, on their natural (positive) scale. */
  params: number[];
  logLikelihood: number;
  converged: boolean;
  /** Optimiser iterations (BFGS, plus Nelder–Mead when it had to take over). */
  iterations: number;
}

// θ = ln(param) is kept inside [−LOG_BOUND, LOG_BOUND]: parameters between 3e-7 and 3.3e6.
const LOG_BOUND = 15;

/**
 * Maximises a log-likelihood over positive parameters. The optimiser works on θ = ln(param), which
 * removes the positivity constraints and evens out the very different scales (α in days vs a near 1);
 * the gradient follows by the chain rule, ∂ℓ/∂θᵢ = paramᵢ · ∂ℓ/∂paramᵢ. BFGS with the analytic
 * gradient converges in a few dozen iterations; should it fail its tests (a line search that cannot
 * progress, e.g. a broken gradient), Nelder–Mead continues from its point with a budget of twice the
 * iterations and its own convergence test decides.
 * `logLikelihood(params, gradient)` returns ℓ and writes ∂ℓ/∂params into `gradient`.
 */
export function maximizeInLogSpace(
  logLikelihood: (params: number[], gradient: number[]) => number,
  initial: readonly number[],
  maxIterations = 1000,
): LogSpaceFit {
  const n = initial.length;
  const scratch = new Array<number>(n).fill(0);
  const objective = (theta: readonly number[], gradient: number[]): number => {
    if (theta.some((t) => Math.abs(t) > LOG_BOUND)) return Infinity;
    const params = theta.map(Math.exp);
    const ll = logLikelihood(params, gradient);
    for (let i = 0; i < n; i++) gradient[i] = -(gradient[i] as number) * (params[i] as number);
    return -ll;
  };
  const start = initial.map(Math.log);
  const quasiNewton = bfgs(objective, start, { maxIterations });
  if (quasiNewton.converged) {
    return {
      params: quasiNewton.x.map(Math.exp),
      logLikelihood: -quasiNewton.value,
      converged: true,
      iterations: quasiNewton.iterations,
    };
  }
  const simplex = nelderMead((theta) => objective(theta, scratch), quasiNewton.x, {
    maxIterations: 2 * maxIterations,
  });
  return {
    params: simplex.x.map(Math.exp),
    logLikelihood: -simplex.value,
    converged: simplex.converged,
    iterations: quasiNewton.iterations + simplex.iterations,
  };
}
