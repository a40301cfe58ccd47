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

// Keys that could carry personal data are censored whatever the caller passes.
const REDACT = ['email', 'phone', 'name', 'customer_name', '*.email', '*.phone', '*.name', '*.customer_name'];

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

/** A JSON logger (pino) on stdout; LOG_LEVEL sets the level (default info, `silent` in tests). */
export function createLogger(service: string, level = process.env.LOG_LEVEL ?? 'info'): Logger {
  return wrap(pino({ level, base: { service }, redact: { paths: REDACT, censor: '[redacted]' } }));
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
