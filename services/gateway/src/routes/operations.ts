import type { RequestHandler } from 'express';
import type { Pool } from '@holdfast/db';
import type { Registry } from '@holdfast/platform';

/** A readiness probe: resolves when the dependency answers. */
export type Probe = () => Promise<unknown>;

const PROBE_TIMEOUT_MS = 2_000;

function withTimeout(p: Promise<unknown>): Promise<unknown> {
  let timer: NodeJS.Timeout | undefined;
  const timeout = new Promise((_, reject) => {
    timer = setTimeout(() => reject(new Error('timed out')), PROBE_TIMEOUT_MS);
  });
  return Promise.race([p, timeout]).finally(() => clearTimeout(timer));
}

/** The PostgreSQL probe every gateway has. */
export function postgresProbe(pool: Pool): Probe {
  return () => pool.query('select 1');
}

/**
 * GET /readyz: 200 `{ready: true, checks}` once every probe (PostgreSQL, Kafka, the schema registry)
 * answers; otherwise 503 `{detail, checks}` naming what does not.
 */
export function readyzRoute(probes: Readonly<Record<string, Probe>>): RequestHandler {
  return async (_req, res) => {
    const names = Object.keys(probes);
    const results = await Promise.allSettled(names.map((n) => withTimeout(probes[n]!())));
    const checks: Record<string, string> = {};
    const failing: string[] = [];
    results.forEach((r, i) => {
      const name = names[i]!;
      checks[name] = r.status === 'fulfilled' ? 'ok' : `failing: ${(r.reason as Error).message}`;
      if (r.status === 'rejected') failing.push(name);
    });
    if (failing.length) res.status(503).json({ detail: `Not ready: ${failing.join(', ')}`, checks });
    else res.json({ ready: true, checks });
  };
}

/** GET /metrics in the Prometheus text format. */
export function metricsRoute(registry: Registry): RequestHandler {
  return async (_req, res) => {
    res.type(registry.contentType).send(await registry.metrics());
  };
}
