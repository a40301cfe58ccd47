import type { HoldoutCheck, HoldoutDiagnostics, ScoreResult } from '@holdfast/analytics';

/** The holdout check's columns of analytics.model_fits (docs/analytics.md, "Model choice on a holdout"). */
export interface HoldoutColumns {
  readonly holdoutWeeks: number;
  readonly holdoutCustomers: number;
  readonly choice: HoldoutCheck['chosen'];
  readonly reason: string;
  /** The chosen model's diagnostics (null when none was usable). */
  readonly chosen: Omit<HoldoutDiagnostics, 'reliability'> | null;
  readonly reliability: HoldoutDiagnostics['reliability'] | null;
  /** Every candidate: calibration fit, failure, diagnostics. */
  readonly candidates: readonly Record<string, unknown>[];
}

/** The row of analytics.model_fits one recompute writes. */
export interface ModelFitRow {
  readonly model: ScoreResult['model'];
  readonly params: Record<string, unknown>;
  readonly logLikelihood: number | null;
  readonly customers: number;
  readonly repeatCustomers: number;
  readonly converged: boolean;
  /** Null when the account's history was too short for a holdout check. */
  readonly holdout: HoldoutColumns | null;
}

/**
 * The holdout check as stored: non-finite numbers (a correlation of constant forecasts) become null,
 * JSON having no NaN.
 */
export function holdoutColumns(check: HoldoutCheck): HoldoutColumns {
  const chosen = check.candidates.find((c) => c.model === check.chosen)?.diagnostics ?? null;
  const fits: Record<string, unknown> = {
    bgnbd: check.bgnbd ? { ...check.bgnbd.params, log_likelihood: check.bgnbd.logLikelihood } : null,
    'pareto-nbd': { ...check.paretoNbd.params, log_likelihood: check.paretoNbd.logLikelihood },
  };
  return {
    holdoutWeeks: check.holdoutLength,
    holdoutCustomers: check.customers,
    choice: check.chosen,
    reason: check.reason,
    chosen: chosen ? finiteOrNull({ ...chosen, reliability: undefined }) : null,
    reliability: chosen ? chosen.reliability : null,
    candidates: check.candidates.map((c) => ({
      model: c.model,
      failure: c.failure,
      fit: finiteOrNull(fits[c.model]),
      diagnostics: c.diagnostics ? finiteOrNull(c.diagnostics) : null,
    })),
  };
}

function finiteOrNull<T>(value: T): T {
  return JSON.parse(
    JSON.stringify(value, (_k, v: unknown) => (typeof v === 'number' && !Number.isFinite(v) ? null : v)),
  ) as T;
}

/**
 * The fit diagnostics of a scoring result of `customers` customers as analytics.model_fits keeps them,
 * with `settings` (time unit, horizon, discount rate) merged into params, and the trained fit that was
 * `rejected` in favour of the heuristic, if any.
 */
export function modelFitRow(
  result: Omit<ScoreResult, 'scores'>,
  customers: number,
  settings: Record<string, unknown>,
  rejected: ScoreResult['params'] | null = null,
  holdout: HoldoutColumns | null = null,
): ModelFitRow {
  const p = result.params;
  const base = {
    model: result.model,
    customers,
    repeatCustomers: result.repeatCustomers,
    holdout,
  };
  if ('paretoNbd' in p) {
    const gg = p.gammaGamma;
    return {
      ...base,
      params: {
        ...settings,
        pareto_nbd: {
          ...p.paretoNbd.params,
          log_likelihood: p.paretoNbd.logLikelihood,
          iterations: p.paretoNbd.iterations,
        },
        gamma_gamma: gg
          ? {
              ...gg.params,
              log_likelihood: gg.logLikelihood,
              iterations: gg.iterations,
              customers: gg.customers,
            }
          : null,
      },
      logLikelihood: p.paretoNbd.logLikelihood,
      converged: p.paretoNbd.converged,
    };
  }
  if ('bgnbd' in p) {
    const gg = p.gammaGamma;
    return {
      ...base,
      params: {
        ...settings,
        bgnbd: { ...p.bgnbd.params, log_likelihood: p.bgnbd.logLikelihood, iterations: p.bgnbd.iterations },
        gamma_gamma: gg
          ? {
              ...gg.params,
              log_likelihood: gg.logLikelihood,
              iterations: gg.iterations,
              customers: gg.customers,
            }
          : null,
        // BG/NBD standing in for a Pareto/NBD fit that failed (pareto_nbd_<failure>).
        ...(result.fallbackReason ? { fallback_reason: result.fallbackReason } : {}),
      },
      logLikelihood: p.bgnbd.logLikelihood,
      converged: p.bgnbd.converged,
    };
  }
  // The heuristic is not fitted: "converged" is false only when it stands in for a BG/NBD fit that
  // did not converge (fallback_reason says so).
  return {
    ...base,
    params: {
      ...settings,
      account_median_gap: p.accountMedianGap,
      fallback_reason: result.fallbackReason,
      ...(rejected && 'bgnbd' in rejected
        ? { rejected_bgnbd: { ...rejected.bgnbd.params, log_likelihood: rejected.bgnbd.logLikelihood } }
        : {}),
    },
    logLikelihood: null,
    converged: result.fallbackReason === null,
  };
}
