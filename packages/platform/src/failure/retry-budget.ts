import { classifyError } from './classify.js';

/** The default of HOLDFAST_RETRY_BUDGET: identical failures in a row before the work is given up. */
export const DEFAULT_RETRY_BUDGET = 10;

// Retriable SQLSTATEs raised by the statement itself while PostgreSQL answers: 57014 query cancelled
// (statement_timeout), 55P03 lock not available (lock_timeout), 40001 serialization failure, 40P01
// deadlock. Under load they pass; a statement that always exceeds its timeout fails the same way for
// ever. Outages (connection lost or refused, too many connections, a broker or registry away) are not
// here: they pass by themselves, and no work is given up because something else was down.
const SELF_INFLICTED = new Set(['57014', '55P03', '40001', '40P01']);

function codeOf(err: unknown, depth = 0): string | undefined {
  if (err === null || typeof err !== 'object' || depth > 5) return undefined;
  const e = err as { code?: unknown; cause?: unknown; originalError?: unknown };
  if (typeof e.code === 'string' && SELF_INFLICTED.has(e.code)) return e.code;
  return codeOf(e.cause, depth + 1) ?? codeOf(e.originalError, depth + 1);
}

/**
 * Whether a failure counts against the retry budget: retriable (`classifyError`) AND raised by the
 * work itself while the dependency answered (a statement or lock timeout, a serialization failure, a
 * deadlock), so it may repeat identically without end. A dependency that is away never counts.
 *
 * @example
 * countsAgainstRetryBudget(Object.assign(new Error('canceling statement due to statement timeout'), { code: '57014' })); // true
 * countsAgainstRetryBudget(Object.assign(new Error('connect ECONNREFUSED'), { code: 'ECONNREFUSED' })); // false
 */
export function countsAgainstRetryBudget(err: unknown): boolean {
  return classifyError(err) === 'retriable' && codeOf(err) !== undefined;
}

/** Identical failures of one piece of work in a row. */
export interface RetryStreak {
  /** What makes two failures "the same": the SQLSTATE and the message. */
  readonly signature: string;
  readonly count: number;
}

/** The signature of a failure: its SQLSTATE and its message (never a row's content: pg quotes values, so they are cut). */
export function failureSignature(err: unknown): string {
  const message = err instanceof Error ? err.message : String(err);
  return `${codeOf(err) ?? '-'}|${message.replace(/"[^"]*"/g, '"…"')}`;
}

/**
 * The streak after one more failure of the same work: one longer when it has the previous failure's
 * signature, a new streak of 1 when it differs, none (null) when it does not count against the
 * budget (an outage breaks the streak: what follows it is counted afresh).
 *
 * @example
 * let streak = null;
 * streak = nextRetryStreak(streak, timeout); // { signature: '57014|…', count: 1 }
 * streak = nextRetryStreak(streak, timeout); // count 2
 */
export function nextRetryStreak(prev: RetryStreak | null, err: unknown): RetryStreak | null {
  if (!countsAgainstRetryBudget(err)) return null;
  const signature = failureSignature(err);
  return { signature, count: prev?.signature === signature ? prev.count + 1 : 1 };
}

/** Whether the streak has used up `budget` (HOLDFAST_RETRY_BUDGET): the work is given up. */
export function retryBudgetExhausted(streak: RetryStreak | null, budget: number): boolean {
  return streak !== null && streak.count >= budget;
}

/** The reason stored with the given-up work (dead letter, failed task). */
export function retryBudgetReason(streak: RetryStreak): string {
  return `retries_exhausted: ${streak.count} identical failures (${streak.signature.replace('|', ': ')})`;
}
