import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';

/** What the proxy does to one request. */
export type Fault =
  | 'pass'
  | 'rate-limit'
  | 'too-large-plain'
  | 'too-large-json'
  | 'server-error'
  | 'drop-before'
  | 'drop-after'
  | 'refuse';

/**
 * An HTTP proxy in front of an ingest endpoint that injects faults by request number: 429 with
 * Retry-After: 1, plain-text and JSON 413s, 500s, connections dropped before forwarding, connections
 * dropped after the upstream accepted (so the client must resend what was in fact written), and a 400.
 */
export class FaultProxy {
  private server!: Server;
  url = '';
  requests = 0;
  readonly injected: Record<Fault, number> = {
    pass: 0,
    'rate-limit': 0,
    'too-large-plain': 0,
    'too-large-json': 0,
    'server-error': 0,
    'drop-before': 0,
    'drop-after': 0,
    refuse: 0,
  };
  /** Rows the upstream accepted in requests whose answer was then dropped (legitimate duplicates). */
  rowsAcceptedThenDropped = 0;

  constructor(
    private readonly upstream: string,
    private readonly schedule: (n: number) => Fault,
  ) {}

  async start(): Promise<this> {
    this.server = createServer((req, res) => {
      const n = ++this.requests;
      const fault = this.schedule(n);
      this.injected[fault] += 1;
      const json = (status: number, body: unknown, headers: Record<string, string> = {}) =>
        res.writeHead(status, { 'content-type': 'application/json', ...headers }).end(JSON.stringify(body));
      if (fault === 'drop-before') return void req.socket.destroy();
      const chunks: Buffer[] = [];
      req.on('data', (c: Buffer) => chunks.push(c));
      req.on('end', (): void => {
        if (fault === 'rate-limit')
          return void json(
            429,
            { detail: 'Rate limit exceeded, try again in about 1 seconds' },
            { 'retry-after': '1' },
          );
        if (fault === 'too-large-plain')
          return void res.writeHead(413, { 'content-type': 'text/plain' }).end('payload too large');
        if (fault === 'too-large-json')
          return void json(413, { detail: 'Batch too large (5001 > 5000). Page your upload.' });
        if (fault === 'server-error')
          return void json(500, { detail: 'Internal error; the batch was rolled back' });
        if (fault === 'refuse') return void json(400, { detail: 'refused by the test' });
        void this.forward(req.url!, req.headers.authorization ?? '', Buffer.concat(chunks)).then(
          (up) => {
            if (fault === 'drop-after') {
              const body = JSON.parse(up.text) as { accepted?: number };
              this.rowsAcceptedThenDropped += body.accepted ?? 0;
              return void req.socket.destroy();
            }
            res.writeHead(up.status, { 'content-type': up.contentType }).end(up.text);
          },
          () => res.writeHead(502).end(),
        );
      });
    });
    await new Promise<void>((resolve) => this.server.listen(0, '127.0.0.1', resolve));
    this.url = `http://127.0.0.1:${(this.server.address() as AddressInfo).port}`;
    return this;
  }

  private async forward(path: string, authorization: string, body: Buffer) {
    const res = await fetch(`${this.upstream}${path}`, {
      method: 'POST',
      headers: { authorization, 'content-type': 'application/json' },
      body,
    });
    return { status: res.status, contentType: res.headers.get('content-type') ?? '', text: await res.text() };
  }

  async close(): Promise<void> {
    this.server.closeAllConnections();
    await new Promise((resolve) => this.server.close(resolve));
  }
}
