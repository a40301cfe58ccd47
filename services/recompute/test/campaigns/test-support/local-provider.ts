// Test support: a local HTTP server standing in for an email or SMS provider.
import { once } from 'node:events';
import { createServer, type IncomingHttpHeaders } from 'node:http';
import type { AddressInfo } from 'node:net';

export interface ProviderRequest {
  readonly headers: IncomingHttpHeaders;
  readonly body: Record<string, unknown>;
}

export interface LocalProvider {
  readonly url: string;
  readonly requests: ProviderRequest[];
  /** Status answered to the next requests (default 202). */
  status: number;
  /** Statuses answered first, one per request, before `status` (e.g. [503, 429]: two failures). */
  readonly script: number[];
  close(): Promise<void>;
}

export async function startLocalProvider(path = '/send'): Promise<LocalProvider> {
  const requests: ProviderRequest[] = [];
  const state = { status: 202 };
  const script: number[] = [];
  const server = createServer((req, res) => {
    const chunks: Buffer[] = [];
    req.on('data', (c: Buffer) => chunks.push(c));
    req.on('end', () => {
      requests.push({
        headers: req.headers,
        body: JSON.parse(Buffer.concat(chunks).toString('utf8')) as Record<string, unknown>,
      });
      res.writeHead(script.shift() ?? state.status, { 'content-type': 'application/json' });
      res.end('{"id":"msg"}');
    });
  });
  server.listen(0, '127.0.0.1');
  await once(server, 'listening');
  return {
    url: `http://127.0.0.1:${(server.address() as AddressInfo).port}${path}`,
    requests,
    script,
    get status() {
      return state.status;
    },
    set status(s: number) {
      state.status = s;
    },
    close: async () => {
      server.closeAllConnections();
      await new Promise<void>((resolve) => server.close(() => resolve()));
    },
  };
}
