import { groupTriplets } from './pareto-nbd.js';
import type { TripletGroups } from './pareto-nbd.js';
import { intervalDraws, intervalOf, populationShare, purchaseIntervals, valueBounds } from './intervals.js';
import type { FittedPurchaseModel, IntervalDraws, IntervalOptions, SpendShape } from './intervals.js';
import { mulberry32 } from './prng.js';
import { variates } from './random-variates.js';
import { SCORING_CACHE_LIMIT } from './score.js';
import type { ScoreColumns, ScoreColumnsResult } from './score.js';
import type { SummaryColumns } from './summary.js';
import { GroupIndex } from './group-index.js';

/** Per-customer 90% intervals, row i for row i of the scores (see {@link scoreIntervals}). */
export interface IntervalColumns {
  readonly purchasesLow: Float64Array;
  readonly purchasesHigh: Float64Array;
  readonly lifetimeValueLow: Float64Array;
  readonly lifetimeValueHigh: Float64Array;
  /** False when the fit's information matrix was not positive definite (customer uncertainty only). */
  readonly parameterUncertainty: boolean;
}

/**
 * The intervals of a trained scoring result: `purchaseIntervals` once per distinct (x, t_x, T) over
 * the horizon, then per customer. The lifetime value's interval is realised revenue plus the predicted
 * value scaled by valueLow/expected and valueHigh/expected purchases: the purchases' uncertainty times
 * the customer's spend per purchase drawn from its Gamma-Gamma posterior (`IntervalOptions.spend`), the
 * discounting profile as in the point estimate. Without a Gamma-Gamma fit, the purchases' uncertainty
 * only. Null for the heuristic (no fitted
 * parameters), for an empty account, and when even the customer-only intervals are not finite (a fit
 * at an extreme the predictions overflow at): the scores are then stored without intervals.
 */
export function scoreIntervals(
  result: ScoreColumnsResult,
  summaries: SummaryColumns,
  horizon: number,
  options: IntervalOptions = {},
): IntervalColumns | null {
  const p = result.params;
  const fitted: FittedPurchaseModel | null =
    'bgnbd' in p
      ? { model: 'bgnbd', params: p.bgnbd.params }
      : 'paretoNbd' in p
        ? { model: 'pareto-nbd', params: p.paretoNbd.params }
        : null;
  const n = summaries.frequency.length;
  if (!fitted || n === 0) return null;
  options = { ...options, spend: spendShapeOf(p) };
  // One reused row (groupTriplets copies what it keeps): no object per customer.
  function* rows(): Generator<{ x: number; tx: number; T: number }> {
    const row = { x: 0, tx: 0, T: 0 };
    for (let i = 0; i < n; i++) {
      row.x = summaries.frequency[i]!;
      row.tx = summaries.recency[i]!;
      row.T = summaries.T[i]!;
      yield row;
    }
  }
  const groups = groupTriplets(rows());
  const distinct = Array.from(groups.weight, (_, i) => ({
    x: groups.x[i]!,
    tx: groups.tx[i]!,
    T: groups.T[i]!,
  }));
  let { intervals, parameterUncertainty } = purchaseIntervals(fitted, groups, distinct, horizon, options);
  const finite = (list: typeof intervals) =>
    list.every((iv) => [iv.low, iv.high, iv.valueLow, iv.valueHigh].every(Number.isFinite));
  if (!finite(intervals) && parameterUncertainty) {
    // A parameter draw far out on a ridge can make a prediction overflow: keep the customer's own
    // uncertainty only rather than no interval.
    ({ intervals, parameterUncertainty } = purchaseIntervals(fitted, groups, distinct, horizon, {
      ...options,
      parameterUncertainty: false,
    }));
  }
  if (!finite(intervals)) return null;
  const at = new GroupIndex(3, distinct.length);
  for (const h of distinct) at.add(h.x, h.tx, h.T);
  const out: IntervalColumns = {
    purchasesLow: new Float64Array(n),
    purchasesHigh: new Float64Array(n),
    lifetimeValueLow: new Float64Array(n),
    lifetimeValueHigh: new Float64Array(n),
    parameterUncertainty,
  };
  const s = result.scores;
  const gamma = options.spend?.gamma ?? NaN;
  for (let i = 0; i < n; i++) {
    const iv = intervals[at.find(summaries.frequency[i]!, summaries.recency[i], summaries.T[i])]!;
    const expected = s.expectedPurchases[i]!;
    const perPurchase = expected > 0 ? s.predictedValue[i]! / expected : 0;
    const realised = s.lifetimeValue[i]! - s.predictedValue[i]!;
    const value = valueBounds(iv, shareOf(gamma, summaries.frequency[i]!, summaries.monetaryValue[i]!));
    out.purchasesLow[i] = iv.low;
    out.purchasesHigh[i] = iv.high;
    out.lifetimeValueLow[i] = realised + perPurchase * value.low;
    out.lifetimeValueHigh[i] = realised + perPurchase * value.high;
  }
  return out;
}

/**
 * {@link scoreIntervals} for an account scored in chunks (`scoreWithFit`): the parameter vectors are
 * drawn once ({@link IntervalScorer.of}) and each distinct (x, t_x, T) gets its interval once, kept in
 * a cache bounded like the scoring cache (emptied at `SCORING_CACHE_LIMIT` histories). A history's
 * customer draws come from a generator seeded by the history itself, so its interval is the same
 * whichever chunk meets it first, and after the cache was emptied.
 */
export class IntervalScorer {
  /** (x, t_x, T) → the history's slot in the columns below. */
  private readonly slot = new GroupIndex(3);
  private readonly low: number[] = [];
  private readonly high: number[] = [];
  private readonly valueLow: number[] = [];
  private readonly valueHigh: number[] = [];
  private readonly valueLowOwn: number[] = [];
  private readonly valueHighOwn: number[] = [];

  /** False once some interval this scorer computed was not finite. */
  private finite = true;

  private constructor(
    private readonly draws: IntervalDraws,
    private readonly fitted: FittedPurchaseModel,
    private readonly groups: TripletGroups,
    private readonly horizon: number,
    private readonly options: IntervalOptions & { readonly seed: number },
  ) {}

  /**
   * The scorer of a fit (null for the heuristic and an empty account). Its intervals are checked as
   * they are computed: {@link allFinite} says whether all were finite so far; when not, the caller
   * starts again with {@link fallback} (the streamed recompute's write phase does, meeting every
   * distinct history once: no pass over them all up front to check, then another to write).
   */
  static of(
    fit: Pick<ScoreColumnsResult, 'params'>,
    groups: TripletGroups,
    horizon: number,
    options: IntervalOptions = {},
  ): IntervalScorer | null {
    const p = fit.params;
    const fitted: FittedPurchaseModel | null =
      'bgnbd' in p
        ? { model: 'bgnbd', params: p.bgnbd.params }
        : 'paretoNbd' in p
          ? { model: 'pareto-nbd', params: p.paretoNbd.params }
          : null;
    if (!fitted || groups.customers === 0) return null;
    const withSpend = { ...options, seed: options.seed ?? 1, spend: spendShapeOf(p) };
    return new IntervalScorer(intervalDraws(fitted, groups, withSpend), fitted, groups, horizon, withSpend);
  }

  /** Whether every interval computed so far was finite. */
  get allFinite(): boolean {
    return this.finite;
  }

  /**
   * The scorer to try after a non-finite interval: without the fit's parameter uncertainty, purchase
   * and spend draws alike (a draw far out on a ridge can make a prediction overflow; the customer's
   * own uncertainty stays), or null when this one already had none.
   */
  fallback(): IntervalScorer | null {
    if (!this.parameterDraws) return null;
    const options = { ...this.options, parameterUncertainty: false };
    return new IntervalScorer(
      intervalDraws(this.fitted, this.groups, options),
      this.fitted,
      this.groups,
      this.horizon,
      options,
    );
  }

  /**
   * Whether any of the fit's parameter draws are in: the purchase model's (a positive-definite
   * information matrix) or the spend model's (its covariance). Either may overflow.
   */
  get parameterDraws(): boolean {
    return this.draws.parameterUncertainty || this.draws.spendModels !== null;
  }

  /** Whether the draws had the fit's parameter uncertainty (a positive-definite information matrix). */
  get parameterUncertainty(): boolean {
    return this.draws.parameterUncertainty;
  }

  /** The intervals of a chunk: row i for row i of `summaries` and of its `scores`. */
  columns(
    summaries: Pick<SummaryColumns, 'frequency' | 'recency' | 'T' | 'monetaryValue'>,
    scores: ScoreColumns,
  ): IntervalColumns {
    const gamma = this.draws.spend?.gamma ?? NaN;
    const n = summaries.frequency.length;
    const out: IntervalColumns = {
      purchasesLow: new Float64Array(n),
      purchasesHigh: new Float64Array(n),
      lifetimeValueLow: new Float64Array(n),
      lifetimeValueHigh: new Float64Array(n),
      parameterUncertainty: this.draws.parameterUncertainty,
    };
    for (let i = 0; i < n; i++) {
      const k = this.at(summaries.frequency[i]!, summaries.recency[i]!, summaries.T[i]!);
      const low = this.low[k]!;
      const high = this.high[k]!;
      const expected = scores.expectedPurchases[i]!;
      const perPurchase = expected > 0 ? scores.predictedValue[i]! / expected : 0;
      const realised = scores.lifetimeValue[i]! - scores.predictedValue[i]!;
      const u = shareOf(gamma, summaries.frequency[i]!, summaries.monetaryValue[i]!);
      out.purchasesLow[i] = low;
      out.purchasesHigh[i] = high;
      out.lifetimeValueLow[i] =
        realised + perPurchase * ((1 - u) * this.valueLowOwn[k]! + u * this.valueLow[k]!);
      out.lifetimeValueHigh[i] =
        realised + perPurchase * ((1 - u) * this.valueHighOwn[k]! + u * this.valueHigh[k]!);
      // Finite bounds can still overflow once scaled by the customer's spend per purchase.
      if (!(Number.isFinite(out.lifetimeValueLow[i]!) && Number.isFinite(out.lifetimeValueHigh[i]!)))
        this.finite = false;
    }
    return out;
  }

  private at(x: number, tx: number, T: number): number {
    let k = this.slot.find(x, tx, T);
    if (k !== -1) return k;
    if (this.slot.size >= SCORING_CACHE_LIMIT) {
      this.slot.clear();
      this.low.length = 0;
      this.high.length = 0;
      this.valueLow.length = 0;
      this.valueHigh.length = 0;
      this.valueLowOwn.length = 0;
      this.valueHighOwn.length = 0;
    }
    // The history's own draws, seeded by its key (its text: the numbers each interval was drawn from).
    const v = variates(mulberry32(historySeed(this.options.seed, `${x}|${tx}|${T}`)));
    const iv = intervalOf(this.draws, { x, tx, T }, this.horizon, v);
    const bounds = [iv.low, iv.high, iv.valueLow, iv.valueHigh, iv.valueLowOwn, iv.valueHighOwn];
    if (!bounds.every(Number.isFinite)) this.finite = false;
    k = this.slot.add(x, tx, T);
    this.low.push(iv.low);
    this.high.push(iv.high);
    this.valueLow.push(iv.valueLow);
    this.valueHigh.push(iv.valueHigh);
    this.valueLowOwn.push(iv.valueLowOwn);
    this.valueHighOwn.push(iv.valueHighOwn);
    return k;
  }
}

/**
 * The spend model when the fit has a Gamma-Gamma model (its expected spend is the one scored), with
 * its parameter covariance (drawn into the value interval).
 */
function spendShapeOf(p: ScoreColumnsResult['params']): SpendShape | null {
  const gg = 'gammaGamma' in p ? p.gammaGamma : null;
  return gg ? { ...gg.params, logCovariance: gg.logCovariance ?? null } : null;
}

/** {@link populationShare} of a customer; 1 (no matter) without a spend fit's γ. */
function shareOf(gamma: number, x: number, monetaryValue: number): number {
  return Number.isFinite(gamma) ? populationShare(gamma, x, monetaryValue) : 1;
}

/** FNV-1a of the history's key, mixed with the seed: a generator seed of its own for each history. */
function historySeed(seed: number, key: string): number {
  let h = (0x811c9dc5 ^ seed) >>> 0;
  for (let i = 0; i < key.length; i++) h = Math.imul(h ^ key.charCodeAt(i), 0x01000193) >>> 0;
  return h;
}
