const MINUTE = 60_000;

/**
 * Waits before the retries of a failed delivery (spec: retried up to three times, after 15, then 30,
 * then 45 minutes). A delivery therefore gets at most 1 + 3 attempts.
 */
export const RETRY_DELAYS_MS: readonly number[] = [15 * MINUTE, 30 * MINUTE, 45 * MINUTE];

/**
 * When the next attempt is due after attempt number `attempt` (1-based) failed at `failedAt`, or null
 * when the retries are used up and the delivery has failed for good.
 *
 * @example
 * nextAttemptAt(1, new Date('2025-01-01T00:00:00Z')); // 2025-01-01T00:15:00Z
 * nextAttemptAt(4, new Date('2025-01-01T00:00:00Z')); // null
 */
export function nextAttemptAt(
  attempt: number,
  failedAt: Date,
  delaysMs: readonly number[] = RETRY_DELAYS_MS,
): Date | null {
  const delay = delaysMs[attempt - 1];
  return delay === undefined ? null : new Date(failedAt.getTime() + delay);
}
