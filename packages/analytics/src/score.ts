import { fitBgNbd } from './bgnbd.js';
import type { BgNbdFit, BgNbdParams } from './bgnbd.js';
import {
  bgnbdConditionalExpectedPurchases,
  bgnbdExpectedGap,
  bgnbdMedianTimeToNextPurchase,
  bgnbdProbabilityAlive,
} from './bgnbd-predict.js';
import { discountedPurchases } from './clv.js';
import { fitGammaGammaColumns, gammaGammaExpectedSpend } from './gamma-gamma.js';
import type { GammaGammaFit } from './gamma-gamma.js';
import {
  accountMedianGapOfGroups,
  heuristicCustomer,
  heuristicExpectedPurchases,
  heuristicMedianTimeToNextPurchase,
  heuristicProbabilityAlive,
} from './heuristic.js';
import { churnRisk, LIFECYCLE_STATES, lifecycleState } from './lifecycle.js';
import type { PurchaseModel } from './model-choice.js';
import {
  fitParetoNbd,
  paretoNbdConditionalExpectedPurchases,
  paretoNbdProbabilityAlive,
  paretoNbdProbabilityNoPurchase,
} from './pareto-nbd.js';
import type { ParetoNbdFit, ParetoNbdParams } from './pareto-nbd.js';
import type { LifecycleState } from './lifecycle.js';
import { groupRfm } from './rfm-groups.js';
import type { RfmGroups, RfmRow } from './rfm-groups.js';
import { summaryColumns } from './summary.js';
import { zeroSummaryNumbers } from './summary-numbers.js';
import type { CustomerSummary, SummaryColumns } from './summary.js';
import { addUnits, daysPerUnit, toEpochMs } from './time.js';
import type { Instant, TimeUnit } from './time.js';
import { GroupIndex } from './group-index.js';

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
  /**
   * The purchase model (default BG/NBD), e.g. as chosen on a holdout (`checkOnHoldout`). A Pareto/NBD
   * fit that fails falls back to BG/NBD, with fallbackReason `pareto_nbd_<failure>`.
   */
  purchaseModel?: PurchaseModel;
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
  | { bgnbd: BgNbdFit; gammaGamma: GammaGammaFit | null }
  | { paretoNbd: ParetoNbdFit; gammaGamma: GammaGammaFit | null }
  | { accountMedianGap: number };

/**
 * The scores of {@link scoreSummaryColumns}, as columns: row i scores row i of the summary columns, with
 * exactly the numbers {@link scoreCustomers} puts in its objects. Churn risk is not stored: it is
 * `churnRisk(pAlive[i])`.
 */
export interface ScoreColumns {
  readonly pAlive: Float64Array;
  /** The lifecycle state as its index in `LIFECYCLE_STATES`. */
  readonly state: Uint8Array;
  readonly elapsed: Float64Array;
  readonly expectedGap: Float64Array;
  /** predictedNextPurchaseAt in epoch milliseconds; NaN where it is null. */
  readonly predictedNextPurchaseMs: Float64Array;
  readonly expectedPurchases: Float64Array;
  readonly expectedSpend: Float64Array;
  readonly predictedValue: Float64Array;
  readonly lifetimeValue: Float64Array;
}

/** Result of {@link scoreSummaryColumns}: a {@link ScoreResult} with its scores as columns. */
export interface ScoreColumnsResult extends Omit<ScoreResult, 'scores'> {
  scores: ScoreColumns;
}

/** Result of {@link scoreCustomers}. */
export interface ScoreResult {
  model: 'bgnbd-gg' | 'pareto-nbd-gg' | 'heuristic';
  params: ScoreParams;
  repeatCustomers: number;
  /** Why the heuristic was used although the threshold was met (a fit did not converge); else null. */
  fallbackReason: string | null;
  scores: CustomerScore[];
}

/** What scoring needs of one customer (a row of the summary columns). */
type ScoredRow = RfmRow & Pick<CustomerSummary, 'monetaryValue' | 'totalRevenue' | 'transactions'>;

interface CustomerModel {
  pAlive: number;
  expectedGap: number;
  medianNext: number | null;
  cumulative: (t: number) => number;
}

/**
 * Scores every customer. With at least `minRepeatCustomers` repeat customers BG/NBD and Gamma-Gamma are
 * fitted and used (`bgnbd-gg`), or Pareto/NBD and Gamma-Gamma (`pareto-nbd-gg`) with
 * `purchaseModel: 'pareto-nbd'` (a failed Pareto/NBD fit falls back to BG/NBD, fallbackReason
 * `pareto_nbd_<failure>`); otherwise, or when the BG/NBD fit does not converge, the heuristic
 * (`heuristic`). Spend falls back to the customer's mean transaction value when Gamma-Gamma is
 * unavailable (no convergence, or q ≤ 1 so the population mean spend does not exist).
 */
export function scoreCustomers(summaries: readonly CustomerSummary[], options: ScoreOptions): ScoreResult {
  const result = scoreSummaryColumns(summaryColumns(summaries), options);
  return { ...result, scores: customerScores(summaries, result.scores) };
}

/**
 * {@link scoreCustomers} over summaries held as columns, with the scores as columns too: the same
 * model, parameters and numbers, bit for bit, without an object per customer (a million-customer
 * account would otherwise hold two million objects at once). It is {@link fitAccount} on the columns'
 * {@link accountStatistics}, then {@link scoreWithFit}.
 */
export function scoreSummaryColumns(columns: SummaryColumns, options: ScoreOptions): ScoreColumnsResult {
  const fit = fitAccount(accountStatistics(columns), options);
  return { ...fit, scores: scoreWithFit(columns, fit, options) };
}

/**
 * What fitting an account needs of its customers: BG/NBD depends on a customer through (x, t_x, T)
 * only and Gamma-Gamma through (x, m_x) only, so customers with the same values can be grouped into
 * one row with a weight (how many customers it stands for) and the fit is the same. A streamed
 * recompute builds these groups without ever holding a row per customer.
 */
export interface AccountStatistics {
  /** Every customer, grouped by (x, t_x, T) (`groupRfm`). */
  readonly rfm: RfmGroups;
  /** The customers' (x, m_x); rows with x = 0 or m_x ≤ 0 are ignored. `weight` absent: one each. */
  readonly spend: {
    readonly frequency: ArrayLike<number>;
    readonly monetaryValue: ArrayLike<number>;
    readonly weight?: ArrayLike<number>;
  };
}

/** A fitted account model: everything of a {@link ScoreResult} but the scores. */
export type AccountFit = Omit<ScoreResult, 'scores'>;

/** The {@link AccountStatistics} of summary columns, held in memory (spend rows ungrouped). */
export function accountStatistics(columns: SummaryColumns): AccountStatistics {
  return {
    rfm: groupRfm(rfmRows(columns)),
    spend: { frequency: columns.frequency, monetaryValue: columns.monetaryValue },
  };
}

/**
 * Fits the account's model from its statistics. With at least `minRepeatCustomers` repeat customers
 * BG/NBD and Gamma-Gamma are fitted (`bgnbd-gg`), or Pareto/NBD and Gamma-Gamma (`pareto-nbd-gg`) with
 * `purchaseModel: 'pareto-nbd'` (as chosen on a holdout, `checkOnHoldout`; a failed Pareto/NBD fit
 * falls back to BG/NBD with fallbackReason `pareto_nbd_<failure>`); otherwise, or when the BG/NBD fit does not
 * converge, the heuristic with the account's median gap (`heuristic`). Gamma-Gamma is dropped when it
 * does not converge or q ≤ 1 (the population mean spend does not exist).
 */
export function fitAccount(
  stats: AccountStatistics,
  options: Pick<ScoreOptions, 'timeUnit' | 'minRepeatCustomers' | 'purchaseModel'>,
): AccountFit {
  const unit = options.timeUnit ?? 'weeks';
  const { rfm, spend } = stats;
  let repeatCustomers = 0;
  for (let i = 0; i < rfm.frequency.length; i++) {
    if ((rfm.frequency[i] as number) > 0) repeatCustomers += rfm.weight[i] as number;
  }
  let hasSpend = false;
  for (let i = 0; i < spend.frequency.length && !hasSpend; i++) {
    hasSpend =
      (spend.frequency[i] as number) > 0 &&
      (spend.monetaryValue[i] as number) > 0 &&
      (spend.weight === undefined || (spend.weight[i] as number) > 0);
  }
  const trained = repeatCustomers >= (options.minRepeatCustomers ?? DEFAULT_MIN_REPEAT_CUSTOMERS);
  const spendModel = () => {
    const gg = hasSpend
      ? fitGammaGammaColumns(
          spend.frequency,
          spend.monetaryValue,
          spend.weight ? { weight: spend.weight } : {},
        )
      : null;
    return gg?.converged === true && gg.params.q > 1 ? gg : null;
  };
  let fallbackReason: string | null = null;
  if (trained && options.purchaseModel === 'pareto-nbd') {
    const paretoNbd = fitParetoNbd({
      x: rfm.frequency,
      tx: rfm.recency,
      T: rfm.T,
      weight: rfm.weight,
      customers: rfm.customers,
    });
    if (paretoNbd.converged) {
      const params = { paretoNbd, gammaGamma: spendModel() };
      return { model: 'pareto-nbd-gg', params, repeatCustomers, fallbackReason: null };
    }
    fallbackReason = `pareto_nbd_${paretoNbd.failure ?? 'not_converged'}`;
  }
  const bgnbd = trained ? fitBgNbd(rfm) : null;
  if (bgnbd?.converged === true) {
    const params = { bgnbd, gammaGamma: spendModel() };
    return { model: 'bgnbd-gg', params, repeatCustomers, fallbackReason };
  }
  const gap = accountMedianGapOfGroups(rfm, 1 / daysPerUnit(unit));
  if (bgnbd) fallbackReason = 'bgnbd_not_converged';
  return { model: 'heuristic', params: { accountMedianGap: gap }, repeatCustomers, fallbackReason };
}

/**
 * What {@link scoreWithFit} computes once per distinct (x, t_x, T) under one fit. Pass the same cache
 * to every chunk of one account (and one fit) and each history is modelled once; it holds a few
 * numbers per distinct history, and is emptied when it reaches {@link SCORING_CACHE_LIMIT} histories
 * (a history met again is then modelled again: the same numbers, at the cost of a recomputation), so
 * its memory stays bounded however many histories a large account has.
 */
export interface ScoringCache {
  /** (x, t_x, T) → the history's slot in the columns below. */
  readonly slot: GroupIndex;
  readonly pAlive: number[];
  readonly expectedGap: number[];
  readonly nextMs: number[];
  readonly expected: number[];
  readonly discounted: number[];
}

/** Distinct histories a {@link ScoringCache} holds at most (about 40 MB). */
export const SCORING_CACHE_LIMIT = 250_000;

/** An empty {@link ScoringCache}. */
export function scoringCache(): ScoringCache {
  return { slot: new GroupIndex(3), pAlive: [], expectedGap: [], nextMs: [], expected: [], discounted: [] };
}

/**
 * Scores summary columns under a fitted model ({@link fitAccount}): row i of the result scores row i
 * of the columns. Spend falls back to the customer's mean transaction value where Gamma-Gamma is
 * unavailable. Chunks of one account scored with one `cache` give the numbers scoring them together
 * would.
 */
export function scoreWithFit(
  columns: SummaryColumns,
  fit: AccountFit,
  options: ScoreOptions,
  cache: ScoringCache = scoringCache(),
): ScoreColumns {
  const p = fit.params;
  if ('bgnbd' in p) {
    const { bgnbd, gammaGamma } = p;
    const spend = (s: ScoredRow): number => {
      const value = gammaGamma ? gammaGammaExpectedSpend(gammaGamma.params, s) : NaN;
      return Number.isFinite(value) ? value : ownMeanSpend(s);
    };
    return scoreAll(columns, options, spend, (s) => trainedModel(bgnbd.params, s), cache);
  }
  if ('paretoNbd' in p) {
    const { paretoNbd, gammaGamma } = p;
    const spend = (s: ScoredRow): number => {
      const value = gammaGamma ? gammaGammaExpectedSpend(gammaGamma.params, s) : NaN;
      return Number.isFinite(value) ? value : ownMeanSpend(s);
    };
    return scoreAll(columns, options, spend, (s) => paretoModel(paretoNbd.params, s, options.horizon), cache);
  }
  const gap = p.accountMedianGap;
  return scoreAll(columns, options, ownMeanSpend, (s) => heuristicModel(s, gap), cache);
}

/** The rows of the columns for `groupRfm`, which copies what it needs: one object is reused. */
function* rfmRows(columns: SummaryColumns): Generator<RfmRow> {
  const row = { frequency: 0, recency: 0, T: 0 };
  for (let i = 0; i < columns.frequency.length; i++) {
    row.frequency = columns.frequency[i] as number;
    row.recency = columns.recency[i] as number;
    row.T = columns.T[i] as number;
    yield row;
  }
}

function trainedModel(params: BgNbdParams, s: RfmRow): CustomerModel {
  return {
    pAlive: bgnbdProbabilityAlive(params, s),
    expectedGap: bgnbdExpectedGap(params, s),
    medianNext: bgnbdMedianTimeToNextPurchase(params, s),
    cumulative: (t) => bgnbdConditionalExpectedPurchases(params, s, t),
  };
}

/**
 * Pareto/NBD's customer model. The expected gap is BG/NBD's expression with Pareto/NBD's r and α
 * (the inverse posterior mean purchase rate at the last purchase). The median wait is found by
 * bisection on P(no purchase in u) = ½ within the horizon only (a later one is not stored).
 */
function paretoModel(params: ParetoNbdParams, s: RfmRow, horizon: number): CustomerModel {
  const h = { x: s.frequency, tx: s.recency, T: s.T };
  const quiet = (u: number) => paretoNbdProbabilityNoPurchase(params, h, u);
  let medianNext: number | null = null;
  if (quiet(horizon) < 0.5) {
    let lo = 0;
    let hi = horizon;
    for (let k = 0; k < 30; k++) {
      const mid = (lo + hi) / 2;
      if (quiet(mid) < 0.5) hi = mid;
      else lo = mid;
    }
    medianNext = hi;
  }
  return {
    pAlive: paretoNbdProbabilityAlive(params, h),
    expectedGap: (params.alpha + s.recency) / (params.r + s.frequency),
    medianNext,
    cumulative: (t) => paretoNbdConditionalExpectedPurchases(params, h, t),
  };
}

function heuristicModel(s: RfmRow, accountGap: number): CustomerModel {
  const model = heuristicCustomer(s, accountGap);
  const elapsed = s.T - s.recency;
  return {
    pAlive: heuristicProbabilityAlive(model, elapsed),
    expectedGap: model.gap,
    medianNext: heuristicMedianTimeToNextPurchase(model, elapsed),
    cumulative: (t) => heuristicExpectedPurchases(model, elapsed, t),
  };
}

function ownMeanSpend(s: ScoredRow): number {
  return Math.max(0, s.totalRevenue / s.transactions);
}

function scoreAll(
  columns: SummaryColumns,
  options: ScoreOptions,
  spendOf: (s: ScoredRow) => number,
  modelOf: (s: RfmRow) => CustomerModel,
  cache: ScoringCache,
): ScoreColumns {
  const unit = options.timeUnit ?? 'weeks';
  const asOf = new Date(toEpochMs(options.asOf));
  const clv = {
    horizon: options.horizon,
    discountRate: options.discountRate,
    timeUnit: unit,
    step: options.clvStep,
  };
  const n = columns.frequency.length;
  const out: ScoreColumns = {
    pAlive: new Float64Array(n),
    state: new Uint8Array(n),
    elapsed: new Float64Array(n),
    expectedGap: new Float64Array(n),
    predictedNextPurchaseMs: new Float64Array(n),
    expectedPurchases: new Float64Array(n),
    expectedSpend: new Float64Array(n),
    predictedValue: new Float64Array(n),
    lifetimeValue: new Float64Array(n),
  };
  // Everything but spend depends on (x, t_x, T) and the account-level model only, so identical
  // histories (common with day-bucketed dates) are computed once, into one slot of these arrays.
  const { pAlive, expectedGap, nextMs, expected, discounted } = cache;
  const row: ScoredRow = zeroSummaryNumbers();
  for (let i = 0; i < n; i++) {
    row.frequency = columns.frequency[i] as number;
    row.recency = columns.recency[i] as number;
    row.T = columns.T[i] as number;
    row.monetaryValue = columns.monetaryValue[i] as number;
    row.totalRevenue = columns.totalRevenue[i] as number;
    row.transactions = columns.transactions[i] as number;
    let k = cache.slot.find(row.frequency, row.recency, row.T);
    if (k === -1) {
      if (cache.slot.size >= SCORING_CACHE_LIMIT) {
        cache.slot.clear();
        for (const column of [pAlive, expectedGap, nextMs, expected, discounted]) column.length = 0;
      }
      // A row of its own: the model's closures keep it.
      const model = modelOf({ frequency: row.frequency, recency: row.recency, T: row.T });
      k = cache.slot.add(row.frequency, row.recency, row.T);
      pAlive.push(model.pAlive);
      expectedGap.push(model.expectedGap);
      nextMs.push(
        model.medianNext !== null && model.medianNext <= options.horizon
          ? addUnits(asOf, model.medianNext, unit).getTime()
          : NaN,
      );
      // The CLV's last step is the horizon itself: reuse that value (a trained model's cumulative
      // can cost two quadratures per call) rather than computing it twice.
      let atHorizon = NaN;
      const cumulative = (t: number): number => {
        const value = model.cumulative(t);
        if (t === options.horizon) atHorizon = value;
        return value;
      };
      discounted.push(discountedPurchases(cumulative, clv));
      expected.push(Number.isNaN(atHorizon) ? model.cumulative(options.horizon) : atHorizon);
    }
    const p = pAlive[k] as number;
    const gap = expectedGap[k] as number;
    const elapsed = row.T - row.recency;
    const expectedSpend = spendOf(row);
    const predictedValue = expectedSpend * (discounted[k] as number);
    out.pAlive[i] = p;
    out.state[i] = LIFECYCLE_STATES.indexOf(lifecycleState({ pAlive: p, elapsed, expectedGap: gap }));
    out.elapsed[i] = elapsed;
    out.expectedGap[i] = gap;
    out.predictedNextPurchaseMs[i] = nextMs[k] as number;
    out.expectedPurchases[i] = expected[k] as number;
    out.expectedSpend[i] = expectedSpend;
    out.predictedValue[i] = predictedValue;
    out.lifetimeValue[i] = row.totalRevenue + predictedValue;
  }
  return out;
}

/** The column scores as {@link CustomerScore} objects (row i is customer `summaries[i]`). */
function customerScores(summaries: readonly CustomerSummary[], scores: ScoreColumns): CustomerScore[] {
  return summaries.map((s, i) => {
    const pAlive = scores.pAlive[i] as number;
    const next = scores.predictedNextPurchaseMs[i] as number;
    return {
      customerId: s.customerId,
      pAlive,
      churnRisk: churnRisk(pAlive),
      state: LIFECYCLE_STATES[scores.state[i] as number] as LifecycleState,
      elapsed: scores.elapsed[i] as number,
      expectedGap: scores.expectedGap[i] as number,
      predictedNextPurchaseAt: Number.isNaN(next) ? null : new Date(next),
      expectedPurchases: scores.expectedPurchases[i] as number,
      expectedSpend: scores.expectedSpend[i] as number,
      predictedValue: scores.predictedValue[i] as number,
      lifetimeValue: scores.lifetimeValue[i] as number,
    };
  });
}
