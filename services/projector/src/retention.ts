import type { Pool } from '@holdfast/db';
import type { Logger } from '@holdfast/platform';
import type { AnyProjection } from './projection.js';

/** A running retention pass: `runOnce` for tests and operators, `stop` on shutdown. */
export interface Retention {
  /** One pass over every projection with an `expire`; never throws. Returns the rows deleted per projection. */
  runOnce(): Promise<Record<string, number>>;
  stop(): void;
}

/**
 * Runs the retention rules of the projections this process folds (`expire`), on the live schema,
 * every `intervalMs` (and once at start). The deletes are idempotent, so every projector process
 * runs it; a failed pass is logged and retried at the next tick.
 *
 * @example
 * const retention = startRetention(selectProjections(config.projections), { pool, schema, logger, intervalMs: 600_000 });
 * // on shutdown
 * retention.stop();
 */
export function startRetention(
  projections: readonly AnyProjection[],
  opts: { pool: Pool; schema: string; logger: Logger; intervalMs: number; now?: () => Date },
): Retention {
  const now = opts.now ?? (() => new Date());
  const expiring = projections.filter((p) => p.expire);
  let running: Promise<Record<string, number>> | undefined;
  const pass = async (): Promise<Record<string, number>> => {
    const deleted: Record<string, number> = {};
    for (const p of expiring) {
      try {
        deleted[p.name] = await p.expire!(opts.pool, opts.schema, now());
        if (deleted[p.name])
          opts.logger.info('retention_purged', { projection: p.name, rows: deleted[p.name] });
      } catch (err) {
        deleted[p.name] = 0;
        opts.logger.warn('retention_failed', { projection: p.name, error: (err as Error).message });
      }
    }
    return deleted;
  };
  // One pass at a time: a slow delete is not stacked under the next tick.
  const runOnce = () => (running ??= pass().finally(() => (running = undefined)));
  const timer = expiring.length ? setInterval(() => void runOnce(), opts.intervalMs) : undefined;
  timer?.unref();
  if (expiring.length) void runOnce();
  return { runOnce, stop: () => clearInterval(timer) };
}
