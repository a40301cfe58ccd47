/**
 * Seeded simulation of holdout experiments, used to choose and check the lift test (bench/lift.ts and
 * lift-simulation.test.ts). Pure: the PRNG is mulberry32 seeded by the caller, so a run is reproducible.
 */
import { liftStatistics, type LiftOptions } from './lift.js';
import { mulberry32 } from './prng.js';

/**
 * Per-customer revenue: a share `buyers` spends, the rest spend 0. A buyer spends exp(N(mu, sigma)),
 * and with probability `whaleShare` (of buyers) that amount is multiplied by `whaleFactor`.
 */
export interface RevenueModel {
  readonly name: string;
  readonly buyers: number;
  readonly mu: number;
  readonly sigma: number;
  readonly whaleShare: number;
  readonly whaleFactor: number;
}

/** The revenue models of the benchmark. */
export const REVENUE_MODELS: Readonly<Record<'lognormal' | 'heavy' | 'whales', RevenueModel>> = {
  /** 70% spend nothing; buyers exp(N(3.5, 1)): mean 54.6 per buyer, skewness of a buyer's spend 6.2. */
  lognormal: { name: 'lognormal', buyers: 0.3, mu: 3.5, sigma: 1, whaleShare: 0, whaleFactor: 1 },
  /** 70% spend nothing; buyers exp(N(2.5, 1.5)): mean 37.5, skewness 33.5. */
  heavy: { name: 'heavy σ=1.5', buyers: 0.3, mu: 2.5, sigma: 1.5, whaleShare: 0, whaleFactor: 1 },
  /** Lognormal buyers, 0.5% of them whales spending 40 times as much. */
  whales: { name: 'whales 0.5%×40', buyers: 0.3, mu: 3.5, sigma: 1, whaleShare: 0.005, whaleFactor: 40 },
};

/** Expected revenue per customer of a model. */
export function expectedRevenue(m: RevenueModel): number {
  return m.buyers * Math.exp(m.mu + (m.sigma * m.sigma) / 2) * (1 + m.whaleShare * (m.whaleFactor - 1));
}

/** One scenario: group sizes, revenue model, and the effect (buyers' spend × (1 + effect)). */
export interface LiftScenario {
  readonly holdout: number;
  /** Treated customers per holdout customer (19 for the universal 5% holdout). */
  readonly ratio: number;
  readonly model: RevenueModel;
  /** Relative effect on the treated buyers' spend (0: no lift). */
  readonly effect: number;
  readonly experiments: number;
  readonly seed: number;
}

/** What a method did over the experiments of a scenario. */
export interface LiftSimulationResult {
  readonly experiments: number;
  /** Share of experiments billed (one-sided test at 2.5%): the false-billing rate when effect = 0, else power. */
  readonly billedRate: number;
  /** Share of 95% intervals containing the true lift. */
  readonly coverage: number;
  /** Share of intervals entirely above the true lift (the side that over-bills) and entirely below. */
  readonly missAbove: number;
  readonly missBelow: number;
  /** Mean width of the interval per customer. */
  readonly meanWidth: number;
  /** True lift per customer. */
  readonly trueLift: number;
  /** Mean minimum detectable effect per customer. */
  readonly meanMde: number;
}

/**
 * Runs `experiments` independent experiments of a scenario, each with fresh revenue for both groups,
 * and scores every method on the same data.
 *
 * @example
 * runLiftSimulation({ holdout: 1000, ratio: 19, model: REVENUE_MODELS.lognormal, effect: 0, experiments: 1000, seed: 1 },
 *   { permutation: {}, welch: { test: 'welch' } });
 */
export function runLiftSimulation<K extends string>(
  s: LiftScenario,
  methods: Readonly<Record<K, LiftOptions>>,
): Record<K, LiftSimulationResult> {
  const u = mulberry32(s.seed);
  const normal = (): number => Math.sqrt(-2 * Math.log(1 - u())) * Math.cos(2 * Math.PI * u());
  const m = s.model;
  const draw = (into: Float64Array, factor: number): void => {
    for (let i = 0; i < into.length; i++) {
      if (u() >= m.buyers) {
        into[i] = 0;
        continue;
      }
      const whale = m.whaleShare > 0 && u() < m.whaleShare ? m.whaleFactor : 1;
      into[i] = Math.exp(m.mu + m.sigma * normal()) * whale * factor;
    }
  };
  const trueLift = expectedRevenue(m) * s.effect;
  const treated = new Float64Array(s.holdout * s.ratio);
  const holdout = new Float64Array(s.holdout);
  const keys = Object.keys(methods) as K[];
  const tally = Object.fromEntries(
    keys.map((k) => [k, { billed: 0, covered: 0, above: 0, below: 0, width: 0, mde: 0 }]),
  ) as Record<
    K,
    { billed: number; covered: number; above: number; below: number; width: number; mde: number }
  >;
  for (let e = 0; e < s.experiments; e++) {
    draw(treated, 1 + s.effect);
    draw(holdout, 1);
    for (const k of keys) {
      const r = liftStatistics(treated, holdout, methods[k]);
      const t = tally[k];
      if (r.significantlyPositive) t.billed++;
      const [lower, upper] = r.confidenceInterval;
      if (lower <= trueLift && trueLift <= upper) t.covered++;
      else if (lower > trueLift) t.above++;
      else t.below++;
      t.width += upper - lower;
      t.mde += r.minimumDetectableEffect;
    }
  }
  return Object.fromEntries(
    keys.map((k) => [
      k,
      {
        experiments: s.experiments,
        billedRate: tally[k].billed / s.experiments,
        coverage: tally[k].covered / s.experiments,
        missAbove: tally[k].above / s.experiments,
        missBelow: tally[k].below / s.experiments,
        meanWidth: tally[k].width / s.experiments,
        trueLift,
        meanMde: tally[k].mde / s.experiments,
      },
    ]),
  ) as Record<K, LiftSimulationResult>;
}
