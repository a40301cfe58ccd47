import { describe, expect, it } from 'vitest';
import { bfgs } from './bfgs.js';
import { maximizeInLogSpace } from './mle.js';
import { nelderMead } from './nelder-mead.js';

const rosenbrock = ([x = 0, y = 0]: readonly number[]): number => (1 - x) ** 2 + 100 * (y - x * x) ** 2;

describe('optimisers', () => {
  it('Nelder–Mead finds the Rosenbrock minimum and reports convergence', () => {
    const result = nelderMead(rosenbrock, [-1.2, 1]);
    expect(result.converged).toBe(true);
    expect(result.x[0]).toBeCloseTo(1, 6);
    expect(result.x[1]).toBeCloseTo(1, 6);
  });

  it('Nelder–Mead reports non-convergence when the budget runs out', () => {
    const result = nelderMead(rosenbrock, [-1.2, 1], { maxIterations: 10 });
    expect(result.converged).toBe(false);
    expect(result.iterations).toBeLessThanOrEqual(10);
  });

  it('BFGS finds the Rosenbrock minimum with the analytic gradient', () => {
    const result = bfgs(
      ([x = 0, y = 0], g) => {
        g[0] = -2 * (1 - x) - 400 * x * (y - x * x);
        g[1] = 200 * (y - x * x);
        return rosenbrock([x, y]);
      },
      [-1.2, 1],
    );
    expect(result.converged).toBe(true);
    expect(result.x[0]).toBeCloseTo(1, 6);
    expect(result.x[1]).toBeCloseTo(1, 6);
  });

  it('maximizeInLogSpace maximises over positive parameters (gamma MLE of a known sample)', () => {
    // Exponential log-likelihood n ln λ − λ Σx is maximised at λ = n / Σx.
    const xs = [0.5, 1.5, 2, 4];
    const fit = maximizeInLogSpace(
      ([lambda = 1], g) => {
        g[0] = xs.length / lambda - xs.reduce((s, x) => s + x, 0);
        return xs.length * Math.log(lambda) - lambda * xs.reduce((s, x) => s + x, 0);
      },
      [10],
    );
    expect(fit.converged).toBe(true);
    expect(fit.params[0]).toBeCloseTo(0.5, 8);
  });

  it('falls back to Nelder–Mead when the gradient is unusable', () => {
    const fit = maximizeInLogSpace(
      ([v = 1], g) => {
        g[0] = NaN; // e.g. a broken gradient: BFGS cannot start
        return -((Math.log(v) - 1) ** 2);
      },
      [1],
    );
    expect(fit.converged).toBe(true);
    expect(fit.params[0]).toBeCloseTo(Math.E, 6);
  });
});
