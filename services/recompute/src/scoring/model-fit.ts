import type { ScoreResult } from '@holdfast/analytics';

/** The row of analytics.model_fits one recompute writes. */
export interface ModelFitRow {
  readonly model: ScoreResult['model'];
  readonly params: Record<string, unknown>;
  readonly logLikelihood: number | null;
  readonly customers: number;
  readonly repeatCustomers: number;
  readonly converged: boolean;
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
): ModelFitRow {
  const p = result.params;
  const base = {
    model: result.model,
    customers,
    repeatCustomers: result.repeatCustomers,
  };
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
