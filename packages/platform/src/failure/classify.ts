/**
 * The failure taxonomy every service shares. A failure is one of three kinds:
 *
 * - `retriable`: something else is away for a while (a connection lost, a server restarting, too many
 *   connections, a deadlock, a broker or registry outage). Retry the same work later; never give up
 *   on the record because of it.
 * - `permanent`: the work itself can never succeed as it is (a value PostgreSQL refuses, bytes that
 *   are no record, a schema the registry definitely does not have). Dead-letter that one record.
 * - `bug`: anything not recognised. Crash loudly (the supervisor restarts the process; at-least-once
 *   delivery re-drives the work).
 */
export type FailureKind = 'retriable' | 'permanent' | 'bug';

/** An error that says itself whether retrying can help (the PostHog convention). */
export interface ClassifiedError {
  readonly isRetriable: boolean;
}

/** A failure that will pass: retry the same work later. */
export class TransientError extends Error implements ClassifiedError {
  override readonly name: string = 'TransientError';
  readonly isRetriable = true;
}

/** A failure of one piece of work that retrying cannot fix: dead-letter it. */
export class PermanentError extends Error implements ClassifiedError {
  override readonly name: string = 'PermanentError';
  readonly isRetriable = false;
}

// PostgreSQL SQLSTATE (https://www.postgresql.org/docs/current/errcodes-appendix.html).
// 08 connection exception; 57P01-57P03 admin/crash shutdown, cannot connect now; 53 insufficient
// resources (53300 too many connections); 40001 serialization failure, 40P01 deadlock; 55P03 lock not
// available; 57014 query cancelled (a statement timeout under load: the same statement may pass later);
// 58 system error (I/O); XX000 is left out (internal error: a bug in the statement or the server).
const PG_RETRIABLE = /^(08|53|58)|^(57P01|57P02|57P03|40001|40P01|55P03|57014)$/;
// 22 data exception, 23 integrity constraint violation, 54000 program limit (a value too large for an
// index): the record's values are at fault, whatever the server's state.
const PG_PERMANENT = /^(22|23)|^54000$/;

// Socket-level failures of any client (pg, kafkajs, fetch/undici, mappersmith).
const NETWORK_CODES = new Set([
  'ECONNREFUSED',
  'ECONNRESET',
  'ETIMEDOUT',
  'EPIPE',
  'EHOSTUNREACH',
  'ENETUNREACH',
  'ENETDOWN',
  'ECONNABORTED',
  'EAI_AGAIN',
  'ENOTFOUND',
  'UND_ERR_SOCKET',
  'UND_ERR_CONNECT_TIMEOUT',
  'UND_ERR_HEADERS_TIMEOUT',
  'UND_ERR_BODY_TIMEOUT',
  'UND_ERR_CLOSED',
]);
const NETWORK_IN_TEXT = new RegExp(`\\b(${[...NETWORK_CODES].join('|')})\\b`);

// Messages of pg and pg-pool errors that carry no SQLSTATE but mean "the connection went away".
const PG_CONNECTION_TEXT =
  /Connection terminated|Query read timeout|connection timeout|timeout exceeded when trying to connect|Client has encountered a connection error|terminating connection/i;

// kafkajs errors whose `retriable` flag is false but whose cause was transient: its own retries ran
// out (NumberOfRetriesExceeded), or a connection or request gave up.
const KAFKA_TRANSIENT = new Set([
  'KafkaJSNumberOfRetriesExceeded',
  'KafkaJSConnectionError',
  'KafkaJSConnectionClosedError',
  'KafkaJSRequestTimeoutError',
  'KafkaJSBrokerNotFound',
  'KafkaJSLockTimeout',
  'KafkaJSTimeout',
  'KafkaJSMetadataNotLoaded',
  'KafkaJSNoBrokerAvailableError',
  'KafkaJSGroupCoordinatorNotFound',
]);

interface ErrorLike {
  readonly name?: unknown;
  readonly message?: unknown;
  readonly code?: unknown;
  readonly isRetriable?: unknown;
  readonly retriable?: unknown;
  readonly canRetry?: unknown;
  readonly status?: unknown;
  readonly cause?: unknown;
  readonly originalError?: unknown;
  readonly errors?: unknown;
}

/**
 * Sorts a failure into retriable, permanent or bug. An error's own `isRetriable` wins; then pg
 * SQLSTATE classes, network error codes, @platformatic/kafka's `canRetry`, kafkajs's `retriable` flag and error names, the schema
 * registry client's HTTP status; causes (`cause`, kafkajs `originalError`, AggregateError's `errors`)
 * are looked through. Anything unrecognised is a bug.
 *
 * @example
 * classifyError(Object.assign(new Error('terminating connection'), { code: '57P01' })); // 'retriable'
 * classifyError(Object.assign(new Error('numeric field overflow'), { code: '22003' })); // 'permanent'
 * classifyError(new TypeError('x is undefined')); // 'bug'
 */
export function classifyError(err: unknown): FailureKind {
  return classify(err, 0);
}

/** Whether retrying the same work later can succeed (`classifyError(err) === 'retriable'`). */
export function isRetriable(err: unknown): boolean {
  return classifyError(err) === 'retriable';
}

function classify(err: unknown, depth: number): FailureKind {
  if (err === null || typeof err !== 'object' || depth > 5) return 'bug';
  const e = err as ErrorLike;
  if (typeof e.isRetriable === 'boolean') return e.isRetriable ? 'retriable' : 'permanent';
  const code = typeof e.code === 'string' ? e.code : undefined;
  const name = typeof e.name === 'string' ? e.name : '';
  const message = typeof e.message === 'string' ? e.message : '';
  if (code !== undefined && /^[0-9A-Z]{5}$/.test(code)) {
    if (PG_RETRIABLE.test(code)) return 'retriable';
    if (PG_PERMANENT.test(code)) return 'permanent';
  }
  if (code !== undefined && NETWORK_CODES.has(code)) return 'retriable';
  // @platformatic/kafka's errors (code PLT_KFK_*) say whether the request may be retried: Kafka's
  // table for protocol errors, true for network errors. Its "failed N times" (PLT_KFK_MULTIPLE) has
  // no flag of its own: its attempts' errors are looked through below.
  if (code?.startsWith('PLT_KFK_') && e.canRetry === true) return 'retriable';
  if (name.startsWith('KafkaJS')) {
    if (e.retriable === true || KAFKA_TRANSIENT.has(name)) return 'retriable';
  }
  if (name === 'ResponseError' && typeof e.status === 'number') return registryStatus(e.status, message);
  if (PG_CONNECTION_TEXT.test(message)) return 'retriable';
  // fetch() rejects with TypeError('fetch failed') whose cause holds the socket error.
  for (const inner of causesOf(e)) {
    const kind = classify(inner, depth + 1);
    if (kind !== 'bug') return kind;
  }
  return 'bug';
}

/**
 * The schema registry client (mappersmith) reports a socket failure as status 400 with the socket
 * error in the message; a 404 is a definite "not found".
 */
function registryStatus(status: number, message: string): FailureKind {
  if (status >= 500 || status === 408 || status === 429) return 'retriable';
  if (NETWORK_IN_TEXT.test(message) || /socket hang up|timeout/i.test(message)) return 'retriable';
  return 'permanent';
}

function causesOf(e: ErrorLike): unknown[] {
  const out: unknown[] = [];
  if (e.cause !== undefined) out.push(e.cause);
  if (e.originalError !== undefined) out.push(e.originalError);
  if (Array.isArray(e.errors)) out.push(...(e.errors as unknown[]));
  return out;
}
