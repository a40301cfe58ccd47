/** Options of {@link nelderMead}. */
export interface NelderMeadOptions {
  /** Edge length of the initial simplex (in the units of x; default 0.5). */
  step?: number;
  /** Total iteration budget across restarts (default 10,000). */
  maxIterations?: number;
  /** Converged when the simplex's function values differ by at most fTol·max(1, |f|) (default 1e-11). */
  fTol?: number;
  /** …and its vertices lie within xTol of the best one in every coordinate (default 1e-9). */
  xTol?: number;
}

/** Result of {@link nelderMead}. */
export interface NelderMeadResult {
  x: number[];
  value: number;
  /** True when a restart from the optimum could not improve it (see {@link nelderMead}). */
  converged: boolean;
  iterations: number;
  evaluations: number;
}

/**
 * Minimises f with the Nelder–Mead simplex method, using the dimension-adaptive coefficients of Gao &
 * Han (2012). Simplex methods can stall on a non-optimal point, so after the simplex collapses the
 * search restarts from the best point with a fresh simplex; the result is `converged` only when such a
 * restart ends where it started (within the tolerances). Non-finite values of f count as +∞, which keeps
 * the search inside the region where the objective is defined.
 */
export function nelderMead(
  f: (x: readonly number[]) => number,
  x0: readonly number[],
  options: NelderMeadOptions = {},
): NelderMeadResult {
  const step = options.step ?? 0.5;
  const maxIterations = options.maxIterations ?? 10_000;
  const fTol = options.fTol ?? 1e-11;
  const xTol = options.xTol ?? 1e-9;
  let evaluations = 0;
  const g = (x: readonly number[]): number => {
    evaluations++;
    const v = f(x);
    return Number.isFinite(v) ? v : Infinity;
  };
  let best = { x: [...x0], value: g(x0) };
  let iterations = 0;
  for (let restart = 0; restart < 20 && iterations < maxIterations; restart++) {
    const run = simplexSearch(g, best.x, step, maxIterations - iterations, fTol, xTol);
    iterations += run.iterations;
    const scale = Math.max(1, Math.abs(best.value));
    const improved = best.value - run.value > fTol * scale;
    const moved = run.x.some((v, i) => Math.abs(v - (best.x[i] as number)) > 10 * xTol);
    if (run.value <= best.value) best = { x: run.x, value: run.value };
    if (run.collapsed && restart > 0 && !improved && !moved) {
      return { ...best, converged: true, iterations, evaluations };
    }
  }
  return { ...best, converged: false, iterations, evaluations };
}

interface Vertex {
  x: number[];
  value: number;
}

function simplexSearch(
  g: (x: readonly number[]) => number,
  start: readonly number[],
  step: number,
  budget: number,
  fTol: number,
  xTol: number,
): { x: number[]; value: number; iterations: number; collapsed: boolean } {
  const n = start.length;
  const [reflect, expand, contract, shrink] = [1, 1 + 2 / n, 0.75 - 1 / (2 * n), 1 - 1 / n];
  const simplex: Vertex[] = [{ x: [...start], value: g(start) }];
  for (let i = 0; i < n; i++) {
    const x = [...start];
    x[i] = (x[i] as number) + step;
    simplex.push({ x, value: g(x) });
  }
  const along = (centroid: number[], worst: number[], t: number): number[] =>
    centroid.map((c, i) => c + t * (c - (worst[i] as number)));
  let iterations = 0;
  while (iterations < budget) {
    simplex.sort((p, q) => p.value - q.value);
    const bestV = simplex[0] as Vertex;
    const worstV = simplex[n] as Vertex;
    const spread = worstV.value - bestV.value;
    const size = Math.max(
      ...simplex.map((v) => Math.max(...v.x.map((c, i) => Math.abs(c - (bestV.x[i] as number))))),
    );
    if (spread <= fTol * Math.max(1, Math.abs(bestV.value)) && size <= xTol) {
      return { x: bestV.x, value: bestV.value, iterations, collapsed: true };
    }
    iterations++;
    // Centroid of all vertices but the worst.
    const centroid = bestV.x.map(
      (_, i) => simplex.slice(0, n).reduce((sum, v) => sum + (v.x[i] as number), 0) / n,
    );
    const secondWorst = (simplex[n - 1] as Vertex).value;
    const xr = along(centroid, worstV.x, reflect);
    const fr = g(xr);
    if (fr < bestV.value) {
      const xe = along(centroid, worstV.x, expand);
      const fe = g(xe);
      simplex[n] = fe < fr ? { x: xe, value: fe } : { x: xr, value: fr };
    } else if (fr < secondWorst) {
      simplex[n] = { x: xr, value: fr };
    } else {
      const outside = fr < worstV.value;
      const xc = along(centroid, worstV.x, outside ? contract * reflect : -contract);
      const fc = g(xc);
      if (fc < (outside ? fr : worstV.value)) {
        simplex[n] = { x: xc, value: fc };
      } else {
        for (let j = 1; j <= n; j++) {
          const v = simplex[j] as Vertex;
          const x = v.x.map((c, i) => (bestV.x[i] as number) + shrink * (c - (bestV.x[i] as number)));
          simplex[j] = { x, value: g(x) };
        }
      }
    }
  }
  simplex.sort((p, q) => p.value - q.value);
  const bestV = simplex[0] as Vertex;
  return { x: bestV.x, value: bestV.value, iterations, collapsed: false };
}
