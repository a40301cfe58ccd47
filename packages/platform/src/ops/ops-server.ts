import { createServer, type Server, type ServerResponse } from 'node:http';
import type { AddressInfo } from 'node:net';
import type { Registry } from 'prom-client';
import { Gauge } from 'prom-client';
import { LoopMonitor } from './loop-monitor.js';
import type { Readiness } from './readiness.js';

/** Where and how the ops listener runs. */
export interface OpsServerOptions {
  /** 0 picks a free port. */
  readonly port: number;
  readonly host?: string;
  readonly registry: Registry;
  readonly readiness: Readiness;
  /** /healthz fails when the event loop lags more than this (default 5,000 ms). */
  readonly maxLoopLagMs?: number;
}

/** A running ops listener. */
export interface OpsServer {
  readonly server: Server;
  readonly port: number;
  close(): Promise<void>;
}

/**
 * The operations listener every service runs, apart from any public API port:
 *
 * - `GET /healthz`: liveness. 200 while the process answers and its event loop lags less than
 *   `maxLoopLagMs`; 503 otherwise. A dependency outage never fails it (restarting would not help).
 * - `GET /readyz`: readiness. 200 `{ready: true, checks}` when every check passes, else 503 naming
 *   the failing checks (dependency names and error codes, never internal error text).
 * - `GET /metrics`: Prometheus text of `registry`, with `holdfast_event_loop_lag_seconds`.
 *
 * Start it before connecting to anything, so a service waiting for a dependency is seen alive and
 * not ready.
 *
 * @example
 * const ops = await startOpsServer({ port: 9464, registry, readiness });
 * readiness.add('postgres', () => pool.query('select 1'));
 */
export async function startOpsServer(opts: OpsServerOptions): Promise<OpsServer> {
  const { registry, readiness } = opts;
  const maxLag = opts.maxLoopLagMs ?? 5_000;
  const loop = new LoopMonitor();
  if (!registry.getSingleMetric('holdfast_event_loop_lag_seconds'))
    new Gauge({
      name: 'holdfast_event_loop_lag_seconds',
      help: 'How late the ops loop timer last fired (the liveness signal of /healthz).',
      registers: [registry],
      collect() {
        this.set(loop.lagMs() / 1000);
      },
    });
  const json = (res: ServerResponse, status: number, body: unknown) => {
    res.writeHead(status, { 'content-type': 'application/json', 'cache-control': 'no-store' });
    res.end(JSON.stringify(body));
  };
  const server = createServer((req, res) => {
    const path = (req.url ?? '').split('?')[0];
    if (req.method !== 'GET') return json(res, 405, { detail: 'Method not allowed' });
    if (path === '/healthz') {
      const lagMs = Math.round(loop.lagMs());
      return json(res, lagMs < maxLag ? 200 : 503, { alive: lagMs < maxLag, loop_lag_ms: lagMs });
    }
    if (path === '/readyz') {
      void readiness.report().then(
        (r) => json(res, r.ready ? 200 : 503, r),
        () => json(res, 503, { ready: false, checks: {} }),
      );
      return;
    }
    if (path === '/metrics') {
      registry.metrics().then(
        (body) => {
          res.writeHead(200, { 'content-type': registry.contentType });
          res.end(body);
        },
        () => json(res, 500, { detail: 'Metrics unavailable' }),
      );
      return;
    }
    json(res, 404, { detail: 'Not found' });
  });
  await new Promise<void>((resolve, reject) => {
    server.once('error', reject);
    server.listen(opts.port, opts.host ?? '0.0.0.0', () => {
      server.off('error', reject);
      resolve();
    });
  });
  return {
    server,
    port: (server.address() as AddressInfo).port,
    close: () =>
      new Promise<void>((resolve) => {
        loop.stop();
        server.close(() => resolve());
        server.closeAllConnections();
      }),
  };
}
