import { classifyError } from '@holdfast/platform';

/**
 * The one poison policy of every Holdfast consumer (projector, recompute, dispatcher), applied to a
 * failure of ONE record:
 *
 * - permanent (bytes that are no record, a schema the registry definitely lacks, a value the
 *   database can never store): returns the reason, and the caller dead-letters that record and moves on;
 * - retriable (PostgreSQL, Kafka or the registry away): rethrows, and the runner retries the whole
 *   chunk with backoff: a valid record is never dead-lettered because something else was down;
 * - bug (anything unrecognised): rethrows, and the runner crashes the consumer loudly.
 *
 * @example
 * try { event = await codec.decode(r.value); }
 * catch (err) { dead.push(deadLetterOf(name, topic, r, deadLetterReason(err))); }
 */
export function deadLetterReason(err: unknown): string {
  if (classifyError(err) !== 'permanent') throw err;
  return reasonOf(err);
}

/** The reason stored with a dead letter: SQLSTATE, constraint and message (never the row: PII). */
export function reasonOf(err: unknown): string {
  const e = err as { code?: unknown; message?: unknown; constraint?: unknown; name?: unknown };
  const parts = [
    typeof e.code === 'string' ? `sqlstate ${e.code}` : undefined,
    typeof e.constraint === 'string' ? `constraint ${e.constraint}` : undefined,
    typeof e.message === 'string' ? e.message : String(err),
  ];
  return parts.filter(Boolean).join(': ');
}
