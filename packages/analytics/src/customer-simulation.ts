/**
 * Simulated customers for parameter-recovery checks (the unit test's short run and `npm run bench -- fit`
 * at 1,000,000): BG/NBD buyers with day-bucketed purchase dates, and Gamma-Gamma spends. Seeded
 * (mulberry32), so a seed and a count give the same rows every run.
 */
import type { SpendRow } from './gamma-gamma.js';
import { mulberry32 } from './prng.js';
import type { RfmRow } from './rfm-groups.js';

export const BGNBD_TRUTH = { r: 0.35, alpha: 40, a: 0.8, b: 2.5 } as const; // α in days
export const GAMMA_GAMMA_TRUTH = { p: 6, q: 4, gamma: 15 } as const;

function samplers(seed: number) {
  const u = mulberry32(seed);
  const normal = (): number => Math.sqrt(-2 * Math.log(1 - u())) * Math.cos(2 * Math.PI * u());
  // Marsaglia & Tsang (2000); shape < 1 via G(k) = G(k+1)·U^(1/k).
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
  return { u, gamma };
}

/** `n` BG/NBD customers of `BGNBD_TRUTH`, first purchase 1–2 years before the end, in days. */
export function simulateBgNbdCustomers(n: number, seed: number): RfmRow[] {
  const truth = BGNBD_TRUTH;
  const { u, gamma } = samplers(seed);
  const rows: RfmRow[] = [];
  for (let i = 0; i < n; i++) {
    const lambda = gamma(truth.r) / truth.alpha;
    const ga = gamma(truth.a);
    const p = ga / (ga + gamma(truth.b));
    const T = 365 + Math.floor(u() * 366);
    let t = 0;
    const days = new Set<number>([0]);
    for (;;) {
      t += -Math.log(1 - u()) / lambda;
      if (t > T) break;
      days.add(Math.floor(t));
      if (u() < p) break;
    }
    const last = Math.max(...days);
    rows.push({ frequency: days.size - 1, recency: last, T });
  }
  return rows;
}

/** `n` repeat buyers of `GAMMA_GAMMA_TRUTH` with 1–8 purchases each. */
export function simulateRepeatBuyers(n: number, seed: number): SpendRow[] {
  const truth = GAMMA_GAMMA_TRUTH;
  const { u, gamma } = samplers(seed);
  const rows: SpendRow[] = [];
  for (let i = 0; i < n; i++) {
    const nu = gamma(truth.q) / truth.gamma;
    const x = 1 + Math.floor(u() * 8);
    let total = 0;
    for (let j = 0; j < x; j++) total += gamma(truth.p) / nu;
    rows.push({ frequency: x, monetaryValue: total / x });
  }
  return rows;
}

/** The largest relative error of a fit's parameters against the truth, and which parameter it is. */
export function worstRelativeError<K extends string>(
  fitted: Record<K, number>,
  truth: Readonly<Record<K, number>>,
): { param: K; error: number } {
  let worst = { param: Object.keys(truth)[0] as K, error: 0 };
  for (const k of Object.keys(truth) as K[]) {
    const error = Math.abs(fitted[k] / truth[k] - 1);
    if (error > worst.error) worst = { param: k, error };
  }
  return worst;
}
