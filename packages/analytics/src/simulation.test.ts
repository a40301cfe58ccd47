/**
 * Parameter recovery and speed on simulated data: 1,000,000 BG/NBD customers with day-bucketed
 * purchase dates, and Gamma-Gamma spends. Seeded PRNG (mulberry32) so runs are reproducible.
 */
import { describe, expect, it } from 'vitest';
import { fitBgNbd } from './bgnbd.js';
import { fitGammaGamma } from './gamma-gamma.js';
import { groupRfm } from './rfm-groups.js';
import type { RfmRow } from './rfm-groups.js';

function mulberry32(seed: number): () => number {
  let s = seed >>> 0;
  return () => {
    s = (s + 0x6d2b79f5) >>> 0;
    let t = s;
    t = Math.imul(t ^ (t >>> 15), t | 1);
    t ^= t + Math.imul(t ^ (t >>> 7), t | 61);
    return ((t ^ (t >>> 14)) >>> 0) / 4294967296;
  };
}

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

describe('BG/NBD at scale', () => {
  it('fits 1,000,000 day-bucketed customers in seconds and recovers the parameters', () => {
    const truth = { r: 0.35, alpha: 40, a: 0.8, b: 2.5 }; // α in days
    const { u, gamma } = samplers(42);
    const rows: RfmRow[] = [];
    for (let i = 0; i < 1_000_000; i++) {
      const lambda = gamma(truth.r) / truth.alpha;
      const ga = gamma(truth.a);
      const p = ga / (ga + gamma(truth.b));
      const T = 365 + Math.floor(u() * 366); // first purchase 1–2 years before the end
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
    const started = performance.now();
    const groups = groupRfm(rows);
    const grouped = performance.now();
    const fit = fitBgNbd(groups);
    const done = performance.now();
    console.info(
      `1M customers → ${groups.weight.length} groups; grouping ${(grouped - started).toFixed(0)} ms, ` +
        `fit ${(done - grouped).toFixed(0)} ms, ${fit.iterations} iterations`,
      fit.params,
    );
    expect(groups.customers).toBe(1_000_000);
    expect(fit.converged).toBe(true);
    for (const k of ['r', 'alpha', 'a', 'b'] as const) {
      expect(Math.abs(fit.params[k] / truth[k] - 1), k).toBeLessThan(0.05);
    }
    expect(done - started).toBeLessThan(20_000); // typically a few seconds; generous for slow CI
  }, 120_000);
});

describe('Gamma-Gamma recovery', () => {
  it('recovers p, q, γ from 100,000 simulated repeat buyers', () => {
    const truth = { p: 6, q: 4, gamma: 15 };
    const { u, gamma } = samplers(7);
    const rows = [];
    for (let i = 0; i < 100_000; i++) {
      const nu = gamma(truth.q) / truth.gamma;
      const x = 1 + Math.floor(u() * 8);
      let total = 0;
      for (let j = 0; j < x; j++) total += gamma(truth.p) / nu;
      rows.push({ frequency: x, monetaryValue: total / x });
    }
    const fit = fitGammaGamma(rows);
    expect(fit.converged).toBe(true);
    for (const k of ['p', 'q', 'gamma'] as const)
      expect(Math.abs(fit.params[k] / truth[k] - 1), k).toBeLessThan(0.1);
  });
});
