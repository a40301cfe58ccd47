/** Status of an erasure or an export (the sync task's words, without `skipped`). */
export type RequestStatus = 'queued' | 'running' | 'done' | 'failed';

/** Who queued a request. */
export type RequestedBy = 'api' | 'cli';

/** The request ids are UUIDs: anything else is simply not found (as sync task ids). */
export const REQUEST_ID = /^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$/i;

/**
 * How long a finished erasure still answers a repeated request for the same person: a client retrying
 * its POST within a day gets the same erasure back; later, the same identifiers run again (records
 * ingested since then, without suppression, would otherwise never be erasable).
 */
export const ERASURE_REUSE_MS = 24 * 3600_000;

/** How long an export's document is kept after the request (then the row and the document are deleted). */
export const EXPORT_TTL_MS = 7 * 24 * 3600_000;

/** What a request is about to do next, for the worker's retry rule. */
export type AttemptDecision = { readonly kind: 'run' } | { readonly kind: 'fail'; readonly reason: string };

/**
 * The retry bound of the request worker: a request taken `attempts` times (this one included) runs
 * while `attempts <= maxAttempts`; past that it fails with the last error (a request that keeps
 * failing, or kills its worker, must not be retried forever).
 *
 * @example
 * decideAttempt(4, 3, 'connection terminated'); // { kind: 'fail', reason: 'gave up after 3 attempts: connection terminated' }
 */
export function decideAttempt(
  attempts: number,
  maxAttempts: number,
  lastError: string | null,
): AttemptDecision {
  if (attempts <= maxAttempts) return { kind: 'run' };
  return { kind: 'fail', reason: `gave up after ${maxAttempts} attempts: ${lastError ?? 'worker_lost'}` };
}
