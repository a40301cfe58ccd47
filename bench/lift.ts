// npm run bench -- lift [--experiments 1000 | 500:4000,1000:4000,10000:1000] [--sizes 500,1000,10000]
//   [--models lognormal,heavy,whales] [--effect 0.1] [--tests permutation,hall,welch] [--seed 20261124]:
// pure computation (no stack). For every holdout size (treated = 19×), revenue model and true effect (0
// and --effect on buyers' spend), runs the experiments and prints, per test, the billed rate (false
// billing when the effect is 0, power otherwise) and the coverage of the 95% interval, with Monte-Carlo
// standard errors, the time and the load. Deterministic: the seed and the scenario fix every draw, so a
// scenario gives the same figures whether run alone or with others.
import { REVENUE_MODELS, runLiftSimulation, type LiftOptions, type RevenueModel } from '@holdfast/analytics';
import { loadavg } from 'node:os';

const TESTS: Record<string, LiftOptions> = {
  permutation: {},
  'permutation-999': { permutations: 999 },
  hall: { test: 'hall' },
  welch: { test: 'welch' },
};

const pct = (x: number): string => `${(100 * x).toFixed(1)}%`;
const se = (p: number, n: number): string => `${(100 * Math.sqrt((p * (1 - p)) / n)).toFixed(2)}`;

export async function benchLift(args: Record<string, string>): Promise<void> {
  const sizes = (args.sizes ?? '500,1000,10000').split(',').map(Number);
  const experimentsFor = (holdout: number): number => {
    const spec = args.experiments ?? '1000';
    if (!spec.includes(':')) return Number(spec);
    for (const part of spec.split(',')) {
      const [size, count] = part.split(':').map(Number);
      if (size === holdout) return count!;
    }
    throw new Error(`--experiments names no count for holdout ${holdout}`);
  };
  const modelNames = (args.models ?? 'lognormal,heavy,whales').split(',');
  const effect = Number(args.effect ?? 0.1);
  const seed = Number(args.seed ?? 20261124);
  const tests = Object.fromEntries(
    (args.tests ?? 'permutation,hall,welch').split(',').map((name) => {
      const t = TESTS[name];
      if (!t) throw new Error(`unknown test ${name}; known: ${Object.keys(TESTS).join(', ')}`);
      return [name, t];
    }),
  );
  const models: RevenueModel[] = modelNames.map((name) => {
    const m = (REVENUE_MODELS as Record<string, RevenueModel>)[name];
    if (!m) throw new Error(`unknown model ${name}; known: ${Object.keys(REVENUE_MODELS).join(', ')}`);
    return m;
  });
  console.log(
    `lift simulation: seed ${seed}, load ${loadavg()
      .map((x) => x.toFixed(2))
      .join(
        ' ',
      )}. SE: Monte-Carlo standard error in pp (false billing: of 2.5%; coverage: of 95%; power: of the rate measured)`,
  );
  console.log(
    '| holdout / treated | revenue | true lift/customer | test | experiments | billed (SE) | 95% CI coverage (SE) | CI above / below true lift | mean CI width | mean MDE | s | load |',
  );
  console.log('|---|---|---:|---|---:|---:|---:|---:|---:|---:|---:|---:|');
  for (const holdout of sizes) {
    const experiments = experimentsFor(holdout);
    for (const model of models) {
      for (const e of [0, effect]) {
        const started = performance.now();
        // The scenario, not its place in the run, fixes the seed.
        const scenarioSeed =
          (seed +
            31 * holdout +
            7919 * Object.values(REVENUE_MODELS).indexOf(model) +
            (e > 0 ? 104729 : 0)) >>>
          0;
        const r = runLiftSimulation(
          { holdout, ratio: 19, model, effect: e, experiments, seed: scenarioSeed },
          tests,
        );
        const seconds = ((performance.now() - started) / 1000).toFixed(0);
        const load = loadavg()[0]!.toFixed(1);
        for (const [name, x] of Object.entries(r)) {
          const billedSe = e === 0 ? se(0.025, experiments) : se(x.billedRate, experiments);
          console.log(
            `| ${holdout} / ${holdout * 19} | ${model.name} | ${x.trueLift.toFixed(2)} | ${name} | ${experiments} | ` +
              `${pct(x.billedRate)} (${billedSe}) | ${pct(x.coverage)} (${se(0.95, experiments)}) | ` +
              `${pct(x.missAbove)} / ${pct(x.missBelow)} | ${x.meanWidth.toFixed(2)} | ${x.meanMde.toFixed(2)} | ${seconds} | ${load} |`,
          );
        }
        await Promise.resolve();
      }
    }
  }
}
