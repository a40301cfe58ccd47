import { fitBgNbd } from './bgnbd.js';
import type { BgNbdFit } from './bgnbd.js';
import {
  bgnbdConditionalExpectedPurchases,
  bgnbdExpectedPurchases,
  bgnbdProbabilityAlive,
} from './bgnbd-predict.js';
import { holdoutDiagnostics } from './holdout-diagnostics.js';
import type { HoldoutDiagnostics, PurchasePredictor } from './holdout-diagnostics.js';
import type { HoldoutHistories } from './holdout-split.js';
import {
  fitParetoNbd,
  paretoNbdConditionalExpectedPurchases,
  paretoNbdExpectedPurchases,
  paretoNbdProbabilityNoPurchase,
} from './pareto-nbd.js';
import type { ParetoNbdFit, ParetoNbdParams } from './pareto-nbd.js';
import type { BgNbdParams } from './bgnbd.js';

/** The purchase models an account can be scored with. */
export type PurchaseModel = 'bgnbd' | 'pareto-nbd';

/** One candidate's showing on the holdout; `diagnostics` is null when its calibration fit failed. */
export interface Candidate {
  model: PurchaseModel;
  /** Why the calibration fit is not usable, or null. */
  failure: string | null;
  diagnostics: HoldoutDiagnostics | null;
}

/** Why the rule picked what it picked. */
export type ChoiceReason =
  | 'lower_mean_absolute_error'
  | 'similar_error_lower_aggregate_error'
  | 'tie_keeps_default'
  | 'only_usable_model'
  | 'no_usable_model';

/** Two per-customer errors within this share of each other count as equal. */
export const SIMILAR_ERROR = 0.01;

/**
 * The model-choice rule, on the candidates' holdout diagnostics (in order of preference: the first is
 * the default). Usable candidates are those whose calibration fit converged and whose errors are
 * finite. Per-customer mean absolute error decides (the scores are read customer by customer); when
 * the two are within 1% of each other, the smaller aggregate error |Σ forecast − Σ actual| / Σ actual
 * decides (budgets are set on totals); when that is within 1% too, the default stays (BG/NBD: the same
 * forecasts at a fraction of the cost). No usable candidate: null, and the caller scores heuristically.
 */
export function chooseModel(candidates: readonly Candidate[]): {
  model: PurchaseModel | null;
  reason: ChoiceReason;
} {
  const usable = candidates.filter(
    (c) => c.failure === null && c.diagnostics !== null && Number.isFinite(c.diagnostics.meanAbsoluteError),
  );
  if (usable.length === 0) return { model: null, reason: 'no_usable_model' };
  if (usable.length === 1) return { model: usable[0]!.model, reason: 'only_usable_model' };
  let best = usable[0]!;
  let reason: ChoiceReason = 'tie_keeps_default';
  for (const c of usable.slice(1)) {
    const a = best.diagnostics!;
    const b = c.diagnostics!;
    if (!similar(a.meanAbsoluteError, b.meanAbsoluteError)) {
      if (b.meanAbsoluteError < a.meanAbsoluteError) best = c;
      reason = 'lower_mean_absolute_error';
      continue;
    }
    const ea = Math.abs(a.aggregateError);
    const eb = Math.abs(b.aggregateError);
    if (Number.isFinite(ea) && Number.isFinite(eb) && Math.abs(ea - eb) > SIMILAR_ERROR) {
      if (eb < ea) best = c;
      reason = 'similar_error_lower_aggregate_error';
    }
  }
  return { model: best.model, reason };
}

function similar(a: number, b: number): boolean {
  return Math.abs(a - b) <= SIMILAR_ERROR * Math.max(a, b);
}

/** The predictions of a fitted BG/NBD, for {@link holdoutDiagnostics}. */
export function bgnbdPredictor(params: BgNbdParams): PurchasePredictor {
  const row = (h: { x: number; tx: number; T: number }) => ({ frequency: h.x, recency: h.tx, T: h.T });
  return {
    expected: (h, t) => bgnbdConditionalExpectedPurchases(params, row(h), t),
    // Alive: no purchase in t with probability ((α+T)/(α+T+t))^(r+x) (dropout only follows a purchase).
    pNoPurchase: (h, t) => {
      const p = bgnbdProbabilityAlive(params, row(h));
      return 1 - p + p * Math.exp(-(params.r + h.x) * Math.log1p(t / (params.alpha + h.T)));
    },
    unconditional: (t) => bgnbdExpectedPurchases(params, t),
  };
}

/** The predictions of a fitted Pareto/NBD, for {@link holdoutDiagnostics}. */
export function paretoNbdPredictor(params: ParetoNbdParams): PurchasePredictor {
  return {
    expected: (h, t) => paretoNbdConditionalExpectedPurchases(params, h, t),
    pNoPurchase: (h, t) => paretoNbdProbabilityNoPurchase(params, h, t),
    unconditional: (t) => paretoNbdExpectedPurchases(params, t),
  };
}

/** Everything the holdout check found: both calibration fits, their diagnostics and the choice. */
export interface HoldoutCheck {
  holdoutLength: number;
  customers: number;
  bgnbd: BgNbdFit | null;
  paretoNbd: ParetoNbdFit;
  candidates: Candidate[];
  chosen: PurchaseModel | null;
  reason: ChoiceReason;
}

/**
 * Fits both models on the calibration histories, scores each on the holdout and applies
 * {@link chooseModel}. A BG/NBD fit that throws (no repeat purchase) or does not converge, and a
 * Pareto/NBD fit with a failure, are candidates with their reason and no diagnostics.
 */
export function checkOnHoldout(data: HoldoutHistories): HoldoutCheck {
  const groups = {
    frequency: data.x,
    recency: data.tx,
    T: data.T,
    weight: data.weight,
    customers: data.customers,
  };
  let bgnbd: BgNbdFit | null = null;
  let bgFailure: string | null = null;
  try {
    bgnbd = fitBgNbd(groups);
    if (!bgnbd.converged) bgFailure = 'not_converged';
  } catch {
    bgFailure = 'no_repeat_purchases';
  }
  const paretoNbd = fitParetoNbd({
    x: data.x,
    tx: data.tx,
    T: data.T,
    weight: data.weight,
    customers: data.customers,
  });
  const candidates: Candidate[] = [
    {
      model: 'bgnbd',
      failure: bgFailure,
      diagnostics:
        bgnbd && bgFailure === null ? holdoutDiagnostics(bgnbdPredictor(bgnbd.params), data) : null,
    },
    {
      model: 'pareto-nbd',
      failure: paretoNbd.failure,
      diagnostics: paretoNbd.converged
        ? holdoutDiagnostics(paretoNbdPredictor(paretoNbd.params), data)
        : null,
    },
  ];
  const { model, reason } = chooseModel(candidates);
  return {
    holdoutLength: data.holdoutLength,
    customers: data.customers,
    bgnbd,
    paretoNbd,
    candidates,
    chosen: model,
    reason,
  };
}
