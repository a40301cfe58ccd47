// npm run bench -- intervals [--customers 5000] [--replications 3] [--spend-uncertainty false]:
// coverage of the 90% intervals of each customer's expected purchases and lifetime value
// (purchaseIntervals of @holdfast/analytics; the value's with the spend per purchase drawn from its
// Gamma-Gamma posterior and the Gamma-Gamma fit's p, q, γ from their asymptotic normal, or at their
// point estimate with --spend-uncertainty false). Customers are
// simulated from known parameters (three scenarios: CDNOW's Pareto/NBD and BG/NBD fits, and frequent
// buyers with long histories), the model is refitted on them by maximum likelihood, and each
// customer's interval is checked against the expected purchases (and their value: purchases × the
// customer's mean spend, simulated from CDNOW's Gamma-Gamma) the simulation knows. Exit code 1 when an
// atom-adjusted coverage (docs/analytics.md, "Intervals") is outside 90% ± 2 points.
import { intervalCoverage, type CoverageScenario } from '@holdfast/analytics';
import { report } from './report.js';

const SCENARIOS: readonly (Omit<CoverageScenario, 'customers' | 'seed'> & { name: string })[] = [
  {
    name: 'pareto-nbd, CDNOW fit',
    model: 'pareto-nbd',
    params: { r: 0.55, alpha: 10.6, s: 0.61, beta: 11.7 },
    minT: 26,
    maxT: 39,
    horizon: 52,
  },
  {
    name: 'bgnbd, CDNOW fit',
    model: 'bgnbd',
    params: { r: 0.243, alpha: 4.414, a: 0.793, b: 2.426 },
    minT: 26,
    maxT: 39,
    horizon: 52,
  },
  {
    name: 'pareto-nbd, frequent, 2 years',
    model: 'pareto-nbd',
    params: { r: 2, alpha: 5, s: 0.8, beta: 50 },
    minT: 26,
    maxT: 104,
    horizon: 52,
  },
];

export function benchIntervals(args: Record<string, string>): Promise<number> {
  const customers = Number(args.customers ?? 5000);
  const replications = Number(args.replications ?? 3);
  const spendParameterUncertainty = args['spend-uncertainty'] !== 'false';
  const table: [string, string | number][] = [];
  const figures: Record<string, Record<string, number>> = {};
  let failed = false;
  for (const [k, scenario] of SCENARIOS.entries()) {
    let covered = 0;
    let plain = 0;
    let lapsed = 0;
    let width = 0;
    let value = 0;
    let valueWidth = 0;
    let ms = 0;
    let spendDrawn = 0;
    for (let rep = 0; rep < replications; rep++) {
      const r = intervalCoverage({
        ...scenario,
        customers,
        seed: 1000 * (k + 1) + rep,
        spendParameterUncertainty,
      });
      spendDrawn += r.spendParameterUncertainty ? 1 : 0;
      covered += r.atomAdjustedCoverage / replications;
      plain += r.coverage / replications;
      lapsed += r.certainlyLapsed / replications;
      width += r.meanWidth / replications;
      value += r.valueCoverage / replications;
      valueWidth += r.valueMeanWidth / replications;
      ms += r.ms;
    }
    const n = customers * replications;
    const se = Math.sqrt((covered * (1 - covered)) / n);
    const valueSe = Math.sqrt((value * (1 - value)) / n);
    if (Math.abs(covered - 0.9) > 0.02 || Math.abs(value - 0.9) > 0.02) failed = true;
    figures[scenario.name] = {
      coverage: round(covered),
      standard_error: round(se),
      plain_coverage: round(plain),
      certainly_lapsed: round(lapsed),
      mean_width: round(width),
      value_coverage: round(value),
      value_standard_error: round(valueSe),
      value_mean_width: round(valueWidth),
      ms_per_replication: Math.round(ms / replications),
      spend_parameter_draws: spendDrawn,
    };
    table.push([
      scenario.name,
      `coverage ${(100 * covered).toFixed(1)}% ± ${(100 * se).toFixed(1)} (plain ${(100 * plain).toFixed(1)}%, ` +
        `[0,0] for ${(100 * lapsed).toFixed(1)}%), mean width ${width.toFixed(2)}; ` +
        `value coverage ${(100 * value).toFixed(1)}% ± ${(100 * valueSe).toFixed(1)}, mean width $${valueWidth.toFixed(2)} ` +
        `(spend fit drawn in ${spendDrawn}/${replications}); ` +
        `${Math.round(ms / replications)} ms`,
    ]);
  }
  report(
    'intervals',
    { customers, replications, spend_parameter_uncertainty: spendParameterUncertainty ? 1 : 0, ...figures },
    table,
  );
  return Promise.resolve(failed ? 1 : 0);
}

function round(v: number): number {
  return Math.round(v * 10_000) / 10_000;
}
