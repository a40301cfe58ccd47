// npm run bench -- lift [--experiments 1000] [--sizes 500,1000,10000] [--models lognormal,heavy,whales]
//   [--effect 0.1] [--seed 20261124]: pure computation (no stack). For every holdout size (treated = 19×),
// revenue model and true effect (0 and --effect on buyers' spend), runs the experiments and prints, per
// billing test, the billed rate (false billing when the effect is 0, power otherwise) and the coverage
// of the 95% interval. Deterministic: the seed fixes every draw.
import { REVENUE_MODELS, runLiftSimulation, type RevenueModel } from '@holdfast/analytics';
import { loadavg } from 'node:os';

const METHODS = { permutation: {}, hall: { test: 'hall' }, welch: { test: 'welch' } } as const;

export async function benchLift(args: Record<string, string>): Promise<void> {
  const experiments = Number(args.experiments ?? 1000);
  const sizes = (args.sizes ?? '500,1000,10000').split(',').map(Number);
  const modelNames = (args.models ?? 'lognormal,heavy,whales').split(',');
  const effect = Number(args.effect ?? 0.1);
  const seed = Number(args.seed ?? 20261124);
  const models: RevenueModel[] = modelNames.map((name) => {
    const m = (REVENUE_MODELS as Record<string, RevenueModel>)[name];
    if (!m) throw new Error(`unknown model ${name}; known: ${Object.keys(REVENUE_MODELS).join(', ')}`);
    return m;
  });
  console.log(
    `lift simulation: ${experiments} experiments per scenario, seed ${seed}, load ${loadavg()
      .map((x) => x.toFixed(2))
      .join(' ')}`,
  );
  console.log(
    '| holdout | treated | revenue | true lift/customer | test | billed | 95% CI coverage | mean MDE |',
  );
  console.log('|---:|---:|---|---:|---|---:|---:|---:|');
  let k = 0;
  for (const holdout of sizes) {
    for (const model of models) {
      for (const e of [0, effect]) {
        const started = performance.now();
        const r = runLiftSimulation(
          { holdout, ratio: 19, model, effect: e, experiments, seed: seed + 7919 * k++ },
          METHODS,
        );
        for (const [name, x] of Object.entries(r)) {
          console.log(
            `| ${holdout} | ${holdout * 19} | ${model.name} | ${x.trueLift.toFixed(2)} | ${name} | ` +
              `${(100 * x.billedRate).toFixed(1)}% | ${(100 * x.coverage).toFixed(1)}% | ${x.meanMde.toFixed(2)} |`,
          );
        }
        console.error(
          `  (${((performance.now() - started) / 1000).toFixed(1)} s, load ${loadavg()[0]!.toFixed(2)})`,
        );
        await Promise.resolve();
      }
    }
  }
}
