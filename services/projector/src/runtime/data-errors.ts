import { PoisonRecordError } from '../projection.js';

// SQLSTATE classes that say "this data can never be stored as it is": retrying cannot help, so the
// record responsible is isolated and dead-lettered. 22 = data exception (bad timestamp, numeric
// overflow, invalid uuid or JSON), 23 = integrity constraint violation, 54000 = a value too large for
// an index. Everything else (connection loss, deadlock, serialization failure, a bug) is thrown on:
// the runner crashes loudly and the chunk is retried from its checkpoint.
const DATA_SQLSTATE = /^(22|23)|^54000$/;

/** Whether `err` means the records themselves are at fault (never retriable). */
export function isDataError(err: unknown): boolean {
  if (err instanceof PoisonRecordError) return true;
  const code = (err as { code?: unknown } | null)?.code;
  return typeof code === 'string' && DATA_SQLSTATE.test(code);
}

/** The reason stored with a dead letter: SQLSTATE and message (never the row: it may hold PII). */
export function reasonOf(err: unknown): string {
  const e = err as { code?: unknown; message?: unknown; constraint?: unknown };
  const parts = [
    typeof e.code === 'string' ? `sqlstate ${e.code}` : undefined,
    typeof e.constraint === 'string' ? `constraint ${e.constraint}` : undefined,
    typeof e.message === 'string' ? e.message : String(err),
  ];
  return parts.filter(Boolean).join(': ');
}
