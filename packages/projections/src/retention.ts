import type { Pool } from '@holdfast/postgres';
import { DEFAULT_RETENTION, type Logger, type RetentionConfig } from '@holdfast/platform';
import { expireDeadLetters } from './dlq/dead-letter-store.js';
import type { AnyProjection } from './projection.js';

/** A running retention pass: `runOnce` for tests and operators, `stop` on shutdown. */
export interface Retention {
  /** One pass over every rule (`retentionRules`); never throws. Returns the rows deleted per rule. */
  runOnce(): Promise<Record<string, number>>;
  stop(): void;
}

/** One thing the retention pass deletes: a projection's `expire`, or the dead letters. */
export interface RetentionRule {
  readonly name: string;
  expire(pool: Pool, schema: string, now: Date, retention: RetentionConfig): Promise<number>;
}

/** The rule of read_models.dead_letters, which every projection's runner writes. */
export const DEAD_LETTERS_RULE: RetentionRule = {
  name: 'dead-letters',
  expire: (pool, schema, now, retention) => expireDeadLetters(pool, schema, now, retention.deadLetterDays),
};

/**
 * What a retention pass over `projections` deletes: the `expire` of each projection that has one,
 * then the dead letters (their table is shared, and the delete is by the record's timestamp).
 *
 * @example
 * retentionRules(selectProjections()).map((r) => r.name); // ['ingest-batches', 'pixel-events', 'dead-letters']
 */
export function retentionRules(projections: readonly AnyProjection[]): RetentionRule[] {
  const own = projections.flatMap((p) =>
    p.expire ? [{ name: p.name, expire: p.expire.bind(p) } satisfies RetentionRule] : [],
  );
  return [...own, DEAD_LETTERS_RULE];
}

/**
 * Applies every rule once to `schema` at `now`; a failing rule counts 0 and is reported through
 * `onError`, the others still run. What the retention pass runs on each tick, and what a rebuild runs
 * on `<schema>_next` right before its switch (so a replay from offset 0 never brings back rows the
 * live tables had already expired).
 */
export async function applyRetention(
  rules: readonly RetentionRule[],
  pool: Pool,
  schema: string,
  now: Date,
  retention: RetentionConfig,
  onError: (rule: string, err: Error) => void = (_rule, err) => {
    throw err;
  },
): Promise<Record<string, number>> {
  const deleted: Record<string, number> = {};
  for (const rule of rules) {
    try {
      deleted[rule.name] = await rule.expire(pool, schema, now, retention);
    } catch (err) {
      deleted[rule.name] = 0;
      onError(rule.name, err as Error);
    }
  }
  return deleted;
}

/**
 * Runs the retention rules of the projections this process folds (`retentionRules`: batch records
 * past 90 days, pixel events past `retention.pixelEventDays`, dead letters past
 * `retention.deadLetterDays`) on the live schema, every `intervalMs` (and once at start). The deletes
 * are idempotent, so every projector process runs it; a failed pass is logged and retried at the
 * next tick.
 *
 * @example
 * const retention = startRetention(selectProjections(config.projections), { pool, schema, logger, intervalMs: 600_000, retention: config.retention });
 * // on shutdown
 * retention.stop();
 */
export function startRetention(
  projections: readonly AnyProjection[],
  opts: {
    pool: Pool;
    schema: string;
    logger: Logger;
    intervalMs: number;
    retention?: RetentionConfig;
    now?: () => Date;
  },
): Retention {
  const now = opts.now ?? (() => new Date());
  const rules = retentionRules(projections);
  let running: Promise<Record<string, number>> | undefined;
  const pass = async (): Promise<Record<string, number>> => {
    const deleted = await applyRetention(
      rules,
      opts.pool,
      opts.schema,
      now(),
      opts.retention ?? DEFAULT_RETENTION,
      (rule, err) => opts.logger.warn('retention_failed', { rule, error: err.message }),
    );
    for (const [rule, rows] of Object.entries(deleted))
      if (rows) opts.logger.info('retention_purged', { rule, rows });
    return deleted;
  };
  // One pass at a time: a slow delete is not stacked under the next tick.
  const runOnce = () => (running ??= pass().finally(() => (running = undefined)));
  const timer = setInterval(() => void runOnce(), opts.intervalMs);
  timer.unref();
  void runOnce();
  return { runOnce, stop: () => clearInterval(timer) };
}
