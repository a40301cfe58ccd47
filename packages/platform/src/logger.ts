import { pino } from 'pino';

/** The logging port every module takes: a stable snake_case event name plus context. No PII, ever. */
export interface Logger {
  debug(event: string, context?: Record<string, unknown>): void;
  info(event: string, context?: Record<string, unknown>): void;
  warn(event: string, context?: Record<string, unknown>): void;
  error(event: string, context?: Record<string, unknown>): void;
  child(bindings: Record<string, unknown>): Logger;
  /** False when debug lines are dropped: a caller skips building costly debug context (absent: true). */
  readonly debugEnabled?: () => boolean;
}

/**
 * Keys that could carry personal data or a credential, censored whatever the caller passes, at the
 * top level and one level down (a safety net: no log line is meant to carry them at all).
 */
export const REDACTED_LOG_KEYS = [
  'email',
  'phone',
  'name',
  'customer_name',
  'address',
  'shipping_city',
  'shipping_state',
  'shipping_zip',
  'token',
  'authorization',
] as const;

const REDACT = [
  ...REDACTED_LOG_KEYS,
  ...REDACTED_LOG_KEYS.map((k) => `*.${k}`),
  // Request headers as pino's and express' request objects carry them.
  'headers.authorization',
  'req.headers.authorization',
  '*.headers.authorization',
];

function wrap(p: pino.Logger): Logger {
  return {
    debug: (event, ctx) => p.debug({ event, ...ctx }),
    info: (event, ctx) => p.info({ event, ...ctx }),
    warn: (event, ctx) => p.warn({ event, ...ctx }),
    error: (event, ctx) => p.error({ event, ...ctx }),
    child: (bindings) => wrap(p.child(bindings)),
    debugEnabled: () => p.isLevelEnabled('debug'),
  };
}

/**
 * A JSON logger (pino) on stdout (or `destination`); LOG_LEVEL sets the level (default info, `silent`
 * in tests). Keys of REDACTED_LOG_KEYS are censored as `[redacted]`.
 */
export function createLogger(
  service: string,
  level = process.env.LOG_LEVEL ?? 'info',
  destination?: pino.DestinationStream,
): Logger {
  const options = { level, base: { service }, redact: { paths: REDACT, censor: '[redacted]' } };
  return wrap(destination ? pino(options, destination) : pino(options));
}

/** A logger that drops everything (tests). */
export const silentLogger: Logger = {
  debug: () => {},
  info: () => {},
  warn: () => {},
  error: () => {},
  child: () => silentLogger,
  debugEnabled: () => false,
};
