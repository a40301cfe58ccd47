// Test support (e2e): a webhook receiver that verifies every signature and fails the first
// `failuresPerDelivery` attempts of each delivery id with a 500.
import { createHmac, timingSafeEqual } from 'node:crypto';
import { once } from 'node:events';
import { createServer } from 'node:http';
import type { AddressInfo } from 'node:net';

export interface Attempt {
  readonly delivery: string;
  readonly event: string;
  readonly verified: boolean;
  readonly status: number;
  readonly body: { event: string; data: Record<string, string> };
}

export async function startFlakyReceiver(secret: () => string, failuresPerDelivery: number) {
  const attempts: Attempt[] = [];
  const server = createServer((req, res) => {
    const chunks: Buffer[] = [];
    req.on('data', (c: Buffer) => chunks.push(c));
    req.on('end', () => {
      const raw = Buffer.concat(chunks);
      const delivery = String(req.headers['x-service-delivery']);
      const expected = createHmac('sha256', secret()).update(raw).digest();
      const given = Buffer.from(String(req.headers['x-service-signature']), 'hex');
      const verified = given.length === expected.length && timingSafeEqual(given, expected);
      const previous = attempts.filter((a) => a.delivery === delivery).length;
      const status = !verified ? 401 : previous < failuresPerDelivery ? 500 : 200;
      attempts.push({
        delivery,
        event: String(req.headers['x-service-event']),
        verified,
        status,
        body: JSON.parse(raw.toString('utf8')) as Attempt['body'],
      });
      res.writeHead(status).end();
    });
  });
  server.listen(0, '127.0.0.1');
  await once(server, 'listening');
  return {
    url: `http://127.0.0.1:${(server.address() as AddressInfo).port}/flaky`,
    attempts,
    close: async () => {
      server.closeAllConnections();
      await new Promise<void>((resolve) => server.close(() => resolve()));
    },
  };
}
