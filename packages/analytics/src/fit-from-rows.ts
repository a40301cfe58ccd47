import { fitBgNbd } from './bgnbd.js';
import { fitGammaGamma } from './gamma-gamma.js';
import type { OrderRow } from './order-csv.js';
import { fitParetoNbd } from './pareto-nbd.js';
import type { ParetoNbdFailure } from './pareto-nbd.js';
import { groupRfm } from './rfm-groups.js';
import { summarizeOrders } from './summary.js';
import type { Instant, TimeUnit } from './time.js';

/** Output of {@link fitFromOrderRows} (the shape `holdfast analytics fit` prints). */
export interface OrderRowsFit {
  customers: number;
  /** Customers with at least two purchase days in the calibration period. */
  repeat_customers: number;
  bgnbd: { r: number; alpha: number; a: number; b: number; log_likelihood: number };
  /**
   * The Pareto/NBD fit; `failure` is null when it converged, else why not (its numbers are then the
   * optimiser's last point, not an estimate).
   */
  pareto_nbd: {
    r: number;
    alpha: number;
    s: number;
    beta: number;
    log_likelihood: number;
    failure: ParetoNbdFailure | null;
  };
  /** Null when no repeat customer has a positive mean repeat spend. */
  gamma_gamma: { p: number; q: number; gamma: number; log_likelihood: number } | null;
}

/**
 * Summarises order rows up to `calibrationEnd` (same-day orders merged, durations in `timeUnit`,
 * weeks by default) and fits BG/NBD and Pareto/NBD on all customers and Gamma-Gamma on the repeat
 * customers. Throws a
 * RangeError when there is no repeat purchase (BG/NBD cannot be fitted).
 */
export function fitFromOrderRows(
  rows: Iterable<OrderRow>,
  calibrationEnd: Instant,
  options: { timeUnit?: TimeUnit } = {},
): OrderRowsFit {
  const orders = [...rows].map((row) => ({
    customerId: row.customer_id,
    orderDate: row.order_date,
    amount: row.order_amount,
  }));
  const summaries = summarizeOrders(orders, { calibrationEnd, timeUnit: options.timeUnit });
  const bg = fitBgNbd(groupRfm(summaries));
  const pnbd = fitParetoNbd(summaries.map((c) => ({ x: c.frequency, tx: c.recency, T: c.T })));
  const hasSpend = summaries.some((s) => s.frequency > 0 && s.monetaryValue > 0);
  const gg = hasSpend ? fitGammaGamma(summaries) : null;
  return {
    customers: summaries.length,
    repeat_customers: summaries.filter((s) => s.frequency > 0).length,
    bgnbd: { ...bg.params, log_likelihood: bg.logLikelihood },
    pareto_nbd: { ...pnbd.params, log_likelihood: pnbd.logLikelihood, failure: pnbd.failure },
    gamma_gamma: gg ? { ...gg.params, log_likelihood: gg.logLikelihood } : null,
  };
}
