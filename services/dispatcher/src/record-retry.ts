import { classifyError } from '@holdfast/platform';

/**
 * The wait before the n-th retry (0-based) of an attempt's record write: 250 ms doubling, at most 4 s.
 *
 * @example
 * recordRetryDelayMs(0); // 250
 * recordRetryDelayMs(9); // 4000
 */
export function recordRetryDelayMs(retry: number): number {
  return Math.min(4_000, 250 * 2 ** retry);
}

/**
 * Writes an attempt's record, retrying a retriable failure (a terminated connection, PostgreSQL
 * restarting) for up to `withinMs`. Why: the receiver may already have answered 2xx; a record given up
 * at once leaves the claim to expire and the delivery is sent again (a redelivery the receiver must
 * deduplicate). The write is safe to repeat: it only applies to the attempt it was claimed for.
 */
export async function writeRecord<T>(
  write: () => Promise<T>,
  withinMs: number,
  sleep: (ms: number) => Promise<void> = (ms) => new Promise((r) => setTimeout(r, ms)),
  now: () => number = Date.now,
): Promise<T> {
  const until = now() + withinMs;
  for (let retry = 0; ; retry++) {
    try {
      return await write();
    } catch (err) {
      const wait = recordRetryDelayMs(retry);
      if (classifyError(err) !== 'retriable' || now() + wait > until) throw err;
      await sleep(wait);
    }
  }
}
