import type { Logger } from '../logger.js';
import { describeFailure, retry } from './backoff.js';

/** How `waitFor` waits. */
export interface WaitForOptions {
  readonly logger: Logger;
  /** Stops waiting (shutdown during start-up): the last error is thrown. */
  readonly signal?: AbortSignal;
  /** The largest wait between attempts (default 5 s). */
  readonly maxDelayMs?: number;
}

/**
 * Start-up step that depends on another process: runs `step` until it succeeds, retrying retriable
 * failures (a dependency not up yet, restarting, refusing connections) forever with exponential
 * backoff and full jitter, and logging each wait as `dependency_waiting`. Permanent failures and bugs
 * (bad credentials, a broken migration) are thrown at once: waiting cannot fix them.
 *
 * @example
 * const codec = await waitFor('registry', () => EventCodec.connect(url), { logger });
 */
export async function waitFor<T>(
  dependency: string,
  step: () => Promise<T>,
  opts: WaitForOptions,
): Promise<T> {
  let waited = false;
  const value = await retry(step, {
    baseMs: 250,
    maxMs: opts.maxDelayMs ?? 5_000,
    signal: opts.signal,
    onRetry: (err, attempt, delayMs) => {
      waited = true;
      opts.logger.warn('dependency_waiting', {
        dependency,
        attempt,
        delay_ms: delayMs,
        ...describeFailure(err),
      });
    },
  });
  if (waited) opts.logger.info('dependency_available', { dependency });
  return value;
}
