// Test and benchmark support (not shipped behaviour): an HTTP client that sends exactly the bytes,
// method and headers it is given (fetch normalises all three), over a keep-alive agent.
import type { Agent } from 'node:http';
import { request } from 'node:http';

export interface RawRequest {
  readonly method: string;
  readonly path: string;
  /** Header name → value, or several values to send the header several times. */
  readonly headers?: Readonly<Record<string, string | readonly string[]>>;
  readonly body?: Buffer | string;
}

export interface RawAnswer {
  readonly status: number;
  readonly headers: Readonly<Record<string, string | string[] | undefined>>;
  readonly text: string;
  /** The body parsed as JSON, or undefined when it is not JSON. */
  readonly json: unknown;
}

/** Sends one request to `base` (http://host:port) and reads the whole answer. */
export function rawRequest(base: string, r: RawRequest, agent?: Agent): Promise<RawAnswer> {
  const url = new URL(base);
  // An object (not Node's raw array form, with which the client cannot see Content-Length and adds
  // chunked framing); an array value sends the header several times.
  const headers: Record<string, string | string[]> = {};
  for (const [name, v] of Object.entries(r.headers ?? {}))
    headers[name.toLowerCase()] = typeof v === 'string' ? v : [...v];
  const body = r.body === undefined ? undefined : Buffer.isBuffer(r.body) ? r.body : Buffer.from(r.body);
  if (body !== undefined && headers['content-length'] === undefined)
    headers['content-length'] = String(body.length);
  return new Promise((resolve, reject) => {
    const req = request({
      host: url.hostname,
      port: url.port,
      method: r.method,
      path: r.path,
      headers,
      agent: agent ?? false,
    });
    req.on('response', (res) => {
      const chunks: Buffer[] = [];
      res.on('data', (c: Buffer) => chunks.push(c));
      res.on('end', () => {
        const text = Buffer.concat(chunks).toString('utf8');
        let json: unknown = undefined;
        try {
          json = text.length > 0 ? JSON.parse(text) : undefined;
        } catch {
          // plain text (the 413) or no body
        }
        resolve({ status: res.statusCode ?? 0, headers: res.headers, text, json });
      });
      res.on('error', reject);
    });
    req.on('error', reject);
    req.end(body);
  });
}
