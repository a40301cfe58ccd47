// npm run bench -- fit [--customers N (1,000,000)] [--seed S (42)]: BG/NBD parameter recovery and speed
// at scale, pure computation (no stack). Simulates N day-bucketed customers of known parameters, groups
// them and fits; fails (exit 1) unless the fit converges, every parameter is within 5% of the truth
// and grouping + fit take under 20 s. The unit tier runs the same check at 100,000 customers
// (packages/analytics/src/simulation.test.ts).
import {
  BGNBD_TRUTH,
  fitBgNbd,
  groupRfm,
  simulateBgNbdCustomers,
  worstRelativeError,
} from '@holdfast/analytics';
import { report } from './report.js';

export function benchFit(args: Record<string, string>): Promise<number> {
  const customers = Number(args.customers ?? 1_000_000);
  const seed = Number(args.seed ?? 42);
  const t0 = performance.now();
  const rows = simulateBgNbdCustomers(customers, seed);
  const started = performance.now();
  const groups = groupRfm(rows);
  const grouped = performance.now();
  const fit = fitBgNbd(groups);
  const done = performance.now();
  const worst = worstRelativeError(fit.params, BGNBD_TRUTH);
  const ok = groups.customers === customers && fit.converged && worst.error < 0.05 && done - started < 20_000;
  report(
    'fit',
    {
      customers,
      groups: groups.weight.length,
      simulate_ms: Math.round(started - t0),
      group_ms: Math.round(grouped - started),
      fit_ms: Math.round(done - grouped),
      iterations: fit.iterations,
      worst_error_pct: Math.round(worst.error * 10_000) / 100,
      ok: ok ? 'yes' : 'no',
    },
    [
      ['customers → groups', `${customers} → ${groups.weight.length}`],
      ['grouping + fit', `${Math.round(done - started)} ms (${fit.iterations} iterations; limit 20,000 ms)`],
      ['worst parameter error', `${(worst.error * 100).toFixed(2)}% (${worst.param}; limit 5%)`],
      ['fitted', JSON.stringify(fit.params)],
      ['result', ok ? 'ok' : 'FAILED'],
    ],
  );
  return Promise.resolve(ok ? 0 : 1);
}
