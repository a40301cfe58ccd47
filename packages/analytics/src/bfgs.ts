/** Objective with gradient: returns f(x) and writes ∇f(x) into `gradient`. */
export type ValueAndGradient = (x: readonly number[], gradient: number[]) => number;

/** Options of {@link bfgs}. */
export interface BfgsOptions {
  maxIterations?: number;
  /** Converged when max |∂f/∂xᵢ| ≤ gradTol · max(1, |f|) (default 1e-9) … */
  gradTol?: number;
  /** … or when 3 successive iterations each lower f by at most fTol · max(1, |f|) (default 1e-10). */
  fTol?: number;
}

/** Result of {@link bfgs}. */
export interface BfgsResult {
  x: number[];
  value: number;
  /** Whether the gradient test or the stalled-improvement test was met. */
  converged: boolean;
  iterations: number;
  evaluations: number;
}

/**
 * Minimises a smooth function with BFGS (inverse-Hessian updates, Shanno scaling of the first
 * step) and a backtracking Armijo line search. Non-finite values count as +∞, so the line search
 * backs off from regions where the objective is undefined. Converged when the relative gradient test
 * holds, or when f has stopped improving (three iterations in a row each gaining at most fTol
 * relative): the second test ends searches along a ridge towards the boundary, where the optimum is a
 * limit (e.g. BG/NBD's a, b → ∞ when dropout is homogeneous) and f is already at its supremum to within
 * fTol. If the line search cannot decrease f at all, the gradient test decides.
 */
export function bfgs(fg: ValueAndGradient, x0: readonly number[], options: BfgsOptions = {}): BfgsResult {
  const n = x0.length;
  const maxIterations = options.maxIterations ?? 500;
  const gradTol = options.gradTol ?? 1e-9;
  const fTol = options.fTol ?? 1e-10;
  let stalled = 0;
  let evaluations = 0;
  const evaluate = (x: readonly number[], g: number[]): number => {
    evaluations++;
    const v = fg(x, g);
    return Number.isFinite(v) && g.every(Number.isFinite) ? v : Infinity;
  };
  let x = [...x0];
  let g = new Array<number>(n).fill(0);
  let f = evaluate(x, g);
  if (f === Infinity) return { x, value: f, converged: false, iterations: 0, evaluations };
  // Inverse Hessian approximation, row-major.
  let h = identity(n);
  const small = (value: number, grad: number[]): boolean =>
    Math.max(...grad.map(Math.abs)) <= gradTol * Math.max(1, Math.abs(value));
  let iterations = 0;
  for (; iterations < maxIterations; iterations++) {
    if (small(f, g)) return { x, value: f, converged: true, iterations, evaluations };
    let direction = matVec(h, g).map((v) => -v);
    let slope = dot(direction, g);
    if (!(slope < 0)) {
      // Not a descent direction (numerical trouble): restart from steepest descent.
      h = identity(n);
      direction = g.map((v) => -v);
      slope = dot(direction, g);
    }
    let step = 1;
    const gNew = new Array<number>(n).fill(0);
    let xNew = x;
    let fNew = Infinity;
    let accepted = false;
    for (let k = 0; k < 60 && !accepted; k++) {
      xNew = x.map((v, i) => v + step * (direction[i] as number));
      fNew = evaluate(xNew, gNew);
      accepted = fNew <= f + 1e-4 * step * slope; // Armijo sufficient decrease
      // Leaving the domain (f = +∞) calls for a bolder cut than a mere overshoot.
      step *= fNew === Infinity ? 0.1 : 0.5;
    }
    if (!accepted) break; // no progress possible
    const s = xNew.map((v, i) => v - (x[i] as number));
    const y = gNew.map((v, i) => v - (g[i] as number));
    const sy = dot(s, y);
    if (sy > 1e-300) {
      if (iterations === 0) h = identity(n).map((v) => (v * sy) / dot(y, y));
      h = bfgsUpdate(h, s, y, sy);
    }
    stalled = f - fNew <= fTol * Math.max(1, Math.abs(f)) ? stalled + 1 : 0;
    x = xNew;
    g = gNew;
    f = fNew;
    if (stalled >= 3) return { x, value: f, converged: true, iterations: iterations + 1, evaluations };
  }
  return { x, value: f, converged: small(f, g), iterations, evaluations };
}

function identity(n: number): number[] {
  return Array.from({ length: n * n }, (_, k) => (k % (n + 1) === 0 ? 1 : 0));
}

function dot(u: readonly number[], v: readonly number[]): number {
  let s = 0;
  for (let i = 0; i < u.length; i++) s += (u[i] as number) * (v[i] as number);
  return s;
}

function matVec(m: readonly number[], v: readonly number[]): number[] {
  const n = v.length;
  return Array.from({ length: n }, (_, i) => dot(m.slice(i * n, i * n + n), v));
}

// H⁺ = (I − ρ s yᵀ) H (I − ρ y sᵀ) + ρ s sᵀ, ρ = 1/(yᵀs)
function bfgsUpdate(h: readonly number[], s: readonly number[], y: readonly number[], sy: number): number[] {
  const n = s.length;
  const rho = 1 / sy;
  const hy = matVec(h, y);
  const yhy = dot(y, hy);
  const out = new Array<number>(n * n);
  for (let i = 0; i < n; i++) {
    for (let j = 0; j < n; j++) {
      const si = s[i] as number;
      const sj = s[j] as number;
      out[i * n + j] =
        (h[i * n + j] as number) -
        rho * ((hy[i] as number) * sj + si * (hy[j] as number)) +
        (rho * rho * yhy + rho) * si * sj;
    }
  }
  return out;
}
