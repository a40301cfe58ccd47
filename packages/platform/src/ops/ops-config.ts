import { EnvReader } from '../config.js';
import { DEFAULT_RETRY_BUDGET } from '../failure/retry-budget.js';

/** Settings of a service's ops listener (/healthz, /readyz, /metrics). */
export interface OpsConfig {
  readonly port: number;
  /** HOLDFAST_OPS_HOST (default 0.0.0.0: probes come from outside the pod or host). */
  readonly host: string;
  /** HOLDFAST_LOOP_LAG_MAX_MS (default 5,000): /healthz fails above this event-loop lag. */
  readonly maxLoopLagMs: number;
  /**
   * HOLDFAST_CONSUMER_STUCK_MS (default 120,000): a consumer busy with one chunk longer than this, or
   * retrying a dependency, is reported not ready.
   */
  readonly consumerStuckMs: number;
  /**
   * HOLDFAST_CONSUMER_STALL_MS (default 90,000): a consumer neither joined nor fetching (no chunk in
   * flight) longer than this is reported not ready and recreated; if that fails the process exits 1.
   */
  readonly consumerStallMs: number;
  /**
   * HOLDFAST_RETRY_BUDGET (default 10): a record or task whose processing fails with the same
   * retriable error of its own (a statement or lock timeout, a deadlock: `countsAgainstRetryBudget`)
   * this many times in a row is dead-lettered or failed (`retries_exhausted`). Outages never count.
   */
  readonly retryBudget: number;
}

/**
 * Reads the ops listener's settings; `portVar` and `defaultPort` are the service's own (the
 * projector and the dispatcher keep `PORT`, the gateway and the recompute use `HOLDFAST_OPS_PORT`).
 */
export function readOpsConfig(r: EnvReader, portVar: string, defaultPort: number): OpsConfig {
  return {
    port: r.int(portVar, defaultPort, { min: 0, max: 65_535 }),
    host: r.string('HOLDFAST_OPS_HOST', '0.0.0.0'),
    maxLoopLagMs: r.int('HOLDFAST_LOOP_LAG_MAX_MS', 5_000, { min: 100, max: 600_000 }),
    consumerStuckMs: r.int('HOLDFAST_CONSUMER_STUCK_MS', 120_000, { min: 1_000, max: 86_400_000 }),
    consumerStallMs: r.int('HOLDFAST_CONSUMER_STALL_MS', 90_000, { min: 1_000, max: 86_400_000 }),
    retryBudget: r.int('HOLDFAST_RETRY_BUDGET', DEFAULT_RETRY_BUDGET, { min: 1, max: 10_000 }),
  };
}

/**
 * The ops listener's settings read from `env` alone (a service whose other settings have a reader of
 * their own). Throws one ConfigError naming every problem.
 *
 * @example
 * const ops = loadOpsConfig(process.env, 'PORT', 9466);
 */
export function loadOpsConfig(
  env: Readonly<Record<string, string | undefined>>,
  portVar: string,
  defaultPort: number,
): OpsConfig {
  const r = new EnvReader(env);
  return r.done(readOpsConfig(r, portVar, defaultPort));
}
