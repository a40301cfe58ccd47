import { createServer } from 'node:http';
import type { AddressInfo } from 'node:net';
import type { Registry } from '@holdfast/platform';

/** Serves `GET /metrics` (Prometheus text) and `GET /healthz` on `port` (0 = any free port). */
export async function startMetricsServer(
  registry: Registry,
  port: number,
): Promise<{ port: number; close(): Promise<void> }> {
  const server = createServer((req, res) => {
    if (req.method === 'GET' && req.url === '/metrics') {
      registry.metrics().then(
        (body) => {
          res.writeHead(200, { 'content-type': registry.contentType });
          res.end(body);
        },
        (err: Error) => {
          res.writeHead(500, { 'content-type': 'text/plain' });
          res.end(err.message);
        },
      );
      return;
    }
    const ok = req.method === 'GET' && req.url === '/healthz';
    res.writeHead(ok ? 200 : 404, { 'content-type': ok ? 'application/json' : 'text/plain' });
    res.end(ok ? '{"ok":true}' : 'not found');
  });
  await new Promise<void>((resolve, reject) => {
    server.once('error', reject);
    server.listen(port, resolve);
  });
  return {
    port: (server.address() as AddressInfo).port,
    close: () => new Promise((resolve) => server.close(() => resolve())),
  };
}
