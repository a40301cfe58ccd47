import { classifyError, type FailureKind } from './classify.js';

/** Exponential backoff settings. */
export interface BackoffOptions {
  /** The first delay's ceiling (default 200 ms). */
  readonly baseMs?: number;
  /** The largest ceiling (default 10 s). */
  readonly maxMs?: number;
}

/**
 * Delay before retry number `attempt` (0-based): exponential backoff with full jitter, a uniformly
 * random wait in [0, min(maxMs, baseMs·2^attempt)). Full jitter spreads the retries of many processes
 * that lost the same dependency at the same moment, so its return is not met by a thundering herd.
 *
 * @example
 * backoffDelay(0);                 // in [0, 200)
 * backoffDelay(10, { maxMs: 5000 }); // in [0, 5000)
 */
export function backoffDelay(
  attempt: number,
  opts: BackoffOptions = {},
  random: () => number = Math.random,
): number {
  const base = opts.baseMs ?? 200;
  const max = opts.maxMs ?? 10_000;
  const ceiling = Math.min(max, base * 2 ** Math.min(attempt, 30));
  return Math.floor(random() * ceiling);
}

/** Resolves after `ms`, or at once when `signal` aborts (never rejects). */
export function sleep(ms: number, signal?: AbortSignal): Promise<void> {
  return new Promise((resolve) => {
    if (signal?.aborted) return resolve();
    const timer = setTimeout(done, ms);
    function done() {
      clearTimeout(timer);
      signal?.removeEventListener('abort', done);
      resolve();
    }
    signal?.addEventListener('abort', done, { once: true });
  });
}

/** How `retry` behaves. */
export interface RetryOptions extends BackoffOptions {
  /** Attempts in all (default: unlimited). */
  readonly maxAttempts?: number;
  /** Which failures to retry (default: `classifyError(err) === 'retriable'`). */
  readonly retryOn?: (err: unknown) => boolean;
  /** Told of every failure that will be retried, before the wait. */
  readonly onRetry?: (err: unknown, attempt: number, delayMs: number) => void;
  /** Stops retrying: the last error is thrown. */
  readonly signal?: AbortSignal;
  readonly random?: () => number;
}

/**
 * Runs `fn` until it succeeds, waiting with exponential backoff and full jitter between attempts.
 * A failure that is not retriable (a permanent failure or a bug), the last allowed attempt, or an
 * aborted `signal` throws the error as it is.
 *
 * @example
 * const codec = await retry(() => EventCodec.connect(url), {
 *   onRetry: (err, n, ms) => logger.warn('registry_waiting', { attempt: n, delay_ms: ms }),
 * });
 */
export async function retry<T>(fn: (attempt: number) => Promise<T>, opts: RetryOptions = {}): Promise<T> {
  const retryOn = opts.retryOn ?? ((err: unknown) => classifyError(err) === 'retriable');
  for (let attempt = 0; ; attempt++) {
    try {
      return await fn(attempt);
    } catch (err) {
      const last = opts.maxAttempts !== undefined && attempt + 1 >= opts.maxAttempts;
      if (last || opts.signal?.aborted || !retryOn(err)) throw err;
      const delay = backoffDelay(attempt, opts, opts.random);
      opts.onRetry?.(err, attempt + 1, delay);
      await sleep(delay, opts.signal);
      if (opts.signal?.aborted) throw err;
    }
  }
}

/** A short, PII-free description of a failure for logs and the ops endpoints: kind, name and code. */
export function describeFailure(err: unknown): { kind: FailureKind; error: string; code?: string } {
  const e = err as { name?: unknown; code?: unknown; status?: unknown } | null;
  const name = typeof e?.name === 'string' ? e.name : typeof err;
  const code =
    typeof e?.code === 'string' ? e.code : typeof e?.status === 'number' ? `status ${e.status}` : undefined;
  return { kind: classifyError(err), error: name, ...(code ? { code } : {}) };
}
