import type { RequestHandler } from 'express';
import { Counter, Histogram, type Registry } from '@holdfast/platform';

/** The gateway's Prometheus metrics, served on /metrics. */
export interface GatewayMetrics {
  readonly registry: Registry;
  readonly rows: Counter<'endpoint' | 'outcome'>;
  readonly appendFailures: Counter<'endpoint'>;
  readonly requests: Counter<'method' | 'route' | 'status'>;
  readonly duration: Histogram<'method' | 'route'>;
  readonly customApiDuplicates: Counter<'content'>;
}

export function createGatewayMetrics(registry: Registry): GatewayMetrics {
  return {
    registry,
    rows: new Counter({
      name: 'holdfast_ingest_rows_total',
      help: 'Rows of real (not dry-run) ingest calls, by outcome.',
      labelNames: ['endpoint', 'outcome'],
      registers: [registry],
    }),
    appendFailures: new Counter({
      name: 'holdfast_ingest_append_failures_total',
      help: 'Ingest calls whose Kafka transaction failed (answered 500, nothing written).',
      labelNames: ['endpoint'],
      registers: [registry],
    }),
    requests: new Counter({
      name: 'holdfast_http_requests_total',
      help: 'HTTP requests by route and status.',
      labelNames: ['method', 'route', 'status'],
      registers: [registry],
    }),
    duration: new Histogram({
      name: 'holdfast_http_request_duration_seconds',
      help: 'HTTP request duration by route.',
      labelNames: ['method', 'route'],
      buckets: [0.005, 0.01, 0.025, 0.05, 0.1, 0.25, 0.5, 1, 2.5, 5, 10],
      registers: [registry],
    }),
    customApiDuplicates: new Counter({
      name: 'holdfast_custom_api_duplicates_total',
      help: 'POST /webhooks/custom-api calls answered duplicate: true, by whether their content differed from the first event of the key (differs: answered with a warning and ignored).',
      labelNames: ['content'],
      registers: [registry],
    }),
  };
}

/** Notes where a router is mounted, for the route label of `observeRequests`. */
export const noteMount: RequestHandler = (req, res, next) => {
  res.locals.mount = req.baseUrl;
  next();
};

/** Observes every request once it is answered; the route label is the pattern, never the raw path. */
export function observeRequests(metrics: GatewayMetrics): RequestHandler {
  return (req, res, next) => {
    const started = performance.now();
    res.once('finish', () => {
      // req.baseUrl is reset when an error leaves a router, so the mount point is noted on the way in.
      const mount = (res.locals.mount as string | undefined) ?? '';
      const routePath = (req.route as { path?: string } | undefined)?.path;
      const route = routePath !== undefined ? `${mount}${routePath}` : mount ? `${mount}/*` : 'unmatched';
      metrics.requests.inc({ method: req.method, route, status: String(res.statusCode) });
      metrics.duration.observe({ method: req.method, route }, (performance.now() - started) / 1000);
    });
    next();
  };
}
