import type { RequestHandler } from 'express';
import type { Readiness, Registry } from '@holdfast/platform';

/**
 * GET /readyz: 200 `{ready: true, checks}` once every check (PostgreSQL, Kafka, the schema registry)
 * passes; otherwise 503 `{ready: false, checks}` naming what does not, by dependency name and error
 * code only (never a client library's message: it may carry hosts or SQL). Served on the ops
 * listener; on the API port only with HOLDFAST_OPS_ON_API_PORT.
 */
export function readyzRoute(readiness: Readiness): RequestHandler {
  return async (_req, res) => {
    const report = await readiness.report();
    res.status(report.ready ? 200 : 503).json(report);
  };
}

/** GET /metrics in the Prometheus text format. */
export function metricsRoute(registry: Registry): RequestHandler {
  return async (_req, res) => {
    res.type(registry.contentType).send(await registry.metrics());
  };
}
