import { fitBgNbd } from './bgnbd.js';
import type { BgNbdFit, BgNbdParams } from './bgnbd.js';
import {
  bgnbdConditionalExpectedPurchases,
  bgnbdExpectedGap,
  bgnbdMedianTimeToNextPurchase,
  bgnbdProbabilityAlive,
} from './bgnbd-predict.js';
import { discountedPurchases } from './clv.js';
import { fitGammaGamma, gammaGammaExpectedSpend } from './gamma-gamma.js';
import type { GammaGammaFit } from './gamma-gamma.js';
import {
  accountMedianGap,
  heuristicCustomer,
  heuristicExpectedPurchases,
  heuristicMedianTimeToNextPurchase,
  heuristicProbabilityAlive,
} from './heuristic.js';
import { churnRisk, lifecycleState } from './lifecycle.js';
import type { LifecycleState } from './lifecycle.js';
import { groupRfm } from './rfm-groups.js';
import type { CustomerSummary } from './summary.js';
import { addUnits, daysPerUnit, toEpochMs } from './time.js';
import type { Instant, TimeUnit } from './time.js';

/** Customers with at least two purchase days needed before BG/NBD + Gamma-Gamma are trained. */
export const DEFAULT_MIN_REPEAT_CUSTOMERS = 100;

/** Options of {@link scoreCustomers}. */
export interface ScoreOptions {
  /** The calibration end the summaries were computed with; predicted dates are measured from it. */
  asOf: Instant;
  /** Horizon of expected purchases and predicted value, in `timeUnit`. */
  horizon: number;
  /** Annual discount rate of the predicted value. */
  discountRate: number;
  /** Unit of the summaries' durations and of `horizon` (default weeks). */
  timeUnit?: TimeUnit;
  /** Training threshold (default {@link DEFAULT_MIN_REPEAT_CUSTOMERS}). */
  minRepeatCustomers?: number;
  /** Discounting step (default one month), see `discountedPurchases`. */
  clvStep?: number;
}

/** Scores of one customer. Durations are in the options' time unit. */
export interface CustomerScore {
  customerId: string;
  pAlive: number;
  /** 1 − P(alive). */
  churnRisk: number;
  state: LifecycleState;
  /** s = T − t_x: time since the last purchase. */
  elapsed: number;
  /** g: expected time between purchases. */
  expectedGap: number;
  /**
   * asOf + the median waiting time to the next purchase, when that lies within the horizon (the
   * customer is more likely than not to buy within it); otherwise null.
   */
  predictedNextPurchaseAt: Date | null;
  /** Expected purchases within the horizon (undiscounted). */
  expectedPurchases: number;
  /** Expected value of a future transaction. */
  expectedSpend: number;
  /** Discounted expected revenue within the horizon. */
  predictedValue: number;
  /** Realised net revenue + predictedValue. */
  lifetimeValue: number;
}

/** Parameters behind a {@link ScoreResult}. */
export type ScoreParams =
  { bgnbd: BgNbdFit; gammaGamma: GammaGammaFit | null } | { accountMedianGap: number };

/** Result of {@link scoreCustomers}. */
export interface ScoreResult {
  model: 'bgnbd-gg' | 'heuristic';
  params: ScoreParams;
  repeatCustomers: number;
  /** Why the heuristic was used although the threshold was met (a fit did not converge); else null. */
  fallbackReason: string | null;
  scores: CustomerScore[];
}

interface CustomerModel {
  pAlive: number;
  expectedGap: number;
  medianNext: number | null;
  cumulative: (t: number) => number;
}

/**
 * Scores every customer. With at least `minRepeatCustomers` repeat customers BG/NBD and Gamma-Gamma are
 * fitted and used (`bgnbd-gg`); otherwise, or when the BG/NBD fit does not converge, the heuristic
 * (`heuristic`). Spend falls back to the customer's mean transaction value when Gamma-Gamma is
 * unavailable (no convergence, or q ≤ 1 so the population mean spend does not exist).
 */
export function scoreCustomers(summaries: readonly CustomerSummary[], options: ScoreOptions): ScoreResult {
  const unit = options.timeUnit ?? 'weeks';
  const repeatCustomers = summaries.filter((s) => s.frequency > 0).length;
  const trained = repeatCustomers >= (options.minRepeatCustomers ?? DEFAULT_MIN_REPEAT_CUSTOMERS);
  const bgnbd = trained ? fitBgNbd(groupRfm(summaries)) : null;
  if (bgnbd?.converged === true) {
    const hasSpend = summaries.some((s) => s.frequency > 0 && s.monetaryValue > 0);
    const gg = hasSpend ? fitGammaGamma(summaries) : null;
    const gammaGamma = gg?.converged === true && gg.params.q > 1 ? gg : null;
    const spend = (s: CustomerSummary): number => {
      const value = gammaGamma ? gammaGammaExpectedSpend(gammaGamma.params, s) : NaN;
      return Number.isFinite(value) ? value : ownMeanSpend(s);
    };
    const scores = scoreAll(summaries, options, spend, (s) => trainedModel(bgnbd.params, s));
    return {
      model: 'bgnbd-gg',
      params: { bgnbd, gammaGamma },
      repeatCustomers,
      fallbackReason: null,
      scores,
    };
  }
  const gap = accountMedianGap(summaries, 1 / daysPerUnit(unit));
  const scores = scoreAll(summaries, options, ownMeanSpend, (s) => heuristicModel(s, gap));
  const fallbackReason = bgnbd ? 'bgnbd_not_converged' : null;
  return { model: 'heuristic', params: { accountMedianGap: gap }, repeatCustomers, fallbackReason, scores };
}

function trainedModel(params: BgNbdParams, s: CustomerSummary): CustomerModel {
  return {
    pAlive: bgnbdProbabilityAlive(params, s),
    expectedGap: bgnbdExpectedGap(params, s),
    medianNext: bgnbdMedianTimeToNextPurchase(params, s),
    cumulative: (t) => bgnbdConditionalExpectedPurchases(params, s, t),
  };
}

function heuristicModel(s: CustomerSummary, accountGap: number): CustomerModel {
  const model = heuristicCustomer(s, accountGap);
  const elapsed = s.T - s.recency;
  return {
    pAlive: heuristicProbabilityAlive(model, elapsed),
    expectedGap: model.gap,
    medianNext: heuristicMedianTimeToNextPurchase(model, elapsed),
    cumulative: (t) => heuristicExpectedPurchases(model, elapsed, t),
  };
}

function ownMeanSpend(s: CustomerSummary): number {
  return Math.max(0, s.totalRevenue / s.transactions);
}

function scoreAll(
  summaries: readonly CustomerSummary[],
  options: ScoreOptions,
  spendOf: (s: CustomerSummary) => number,
  modelOf: (s: CustomerSummary) => CustomerModel,
): CustomerScore[] {
  const unit = options.timeUnit ?? 'weeks';
  const asOf = new Date(toEpochMs(options.asOf));
  const clv = {
    horizon: options.horizon,
    discountRate: options.discountRate,
    timeUnit: unit,
    step: options.clvStep,
  };
  // Everything but spend depends on (x, t_x, T) and the account-level model only, so identical
  // histories (common with day-bucketed dates) are computed once.
  const cache = new Map<string, { model: CustomerModel; expected: number; discounted: number }>();
  return summaries.map((s) => {
    const key = `${s.frequency}|${s.recency}|${s.T}`;
    let entry = cache.get(key);
    if (entry === undefined) {
      const model = modelOf(s);
      const expected = model.cumulative(options.horizon);
      entry = { model, expected, discounted: discountedPurchases(model.cumulative, clv) };
      cache.set(key, entry);
    }
    const { model } = entry;
    const elapsed = s.T - s.recency;
    const expectedSpend = spendOf(s);
    const predictedValue = expectedSpend * entry.discounted;
    return {
      customerId: s.customerId,
      pAlive: model.pAlive,
      churnRisk: churnRisk(model.pAlive),
      state: lifecycleState({ pAlive: model.pAlive, elapsed, expectedGap: model.expectedGap }),
      elapsed,
      expectedGap: model.expectedGap,
      predictedNextPurchaseAt:
        model.medianNext !== null && model.medianNext <= options.horizon
          ? addUnits(asOf, model.medianNext, unit)
          : null,
      expectedPurchases: entry.expected,
      expectedSpend,
      predictedValue,
      lifetimeValue: s.totalRevenue + predictedValue,
    };
  });
}
