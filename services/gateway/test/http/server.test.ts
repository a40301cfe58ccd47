import { once } from 'node:events';
import type { Server } from 'node:http';
import { connect, type AddressInfo, type Socket } from 'node:net';
import { afterEach, describe, expect, it } from 'vitest';
import { createGatewayServer } from '../../src/http/server.js';

let server: Server | undefined;

async function start(timeouts: {
  headersTimeoutMs: number;
  requestTimeoutMs: number;
  keepAliveTimeoutMs: number;
}) {
  server = createGatewayServer((_req, res) => {
    res.setHeader('content-type', 'application/json');
    res.end('{"ok":true}');
  }, timeouts);
  server.listen(0, '127.0.0.1');
  await once(server, 'listening');
  return (server.address() as AddressInfo).port;
}

/** Opens a socket, writes `text`, and resolves with everything read until the server closes it. */
function exchange(port: number, write: (s: Socket) => void): Promise<{ text: string; ms: number }> {
  return new Promise((resolve, reject) => {
    const started = Date.now();
    const s = connect(port, '127.0.0.1', () => write(s));
    let text = '';
    s.on('data', (d: Buffer) => (text += d.toString()));
    s.on('close', () => resolve({ text, ms: Date.now() - started }));
    s.on('error', reject);
  });
}

afterEach(async () => {
  server?.closeAllConnections();
  await new Promise<void>((r) => (server ? server.close(() => r()) : r()));
  server = undefined;
});

describe('createGatewayServer', () => {
  it('given a slow-loris client trickling headers, when the headers timeout passes, then it is cut off with a JSON 408', async () => {
    const port = await start({ headersTimeoutMs: 300, requestTimeoutMs: 300, keepAliveTimeoutMs: 5000 });
    const { text, ms } = await exchange(port, (s) => {
      s.write('GET / HTTP/1.1\r\nHost: x\r\n');
      const timer = setInterval(() => (s.writable ? s.write('X-Slow: 1\r\n') : clearInterval(timer)), 50);
      s.on('close', () => clearInterval(timer));
    });
    expect(ms).toBeLessThan(3000);
    expect(text).toMatch(/^HTTP\/1\.1 408 Request Timeout\r\n/);
    expect(text.endsWith('{"detail":"Request Timeout"}')).toBe(true);
  });

  it('given a body that never completes, when the request timeout passes, then the socket is closed', async () => {
    const port = await start({ headersTimeoutMs: 200, requestTimeoutMs: 400, keepAliveTimeoutMs: 5000 });
    const { ms } = await exchange(port, (s) =>
      s.write('POST / HTTP/1.1\r\nHost: x\r\nContent-Length: 100\r\n\r\n{'),
    );
    expect(ms).toBeLessThan(3000);
  });

  it('given an idle keep-alive connection, when the keep-alive timeout passes, then the server closes it', async () => {
    const port = await start({ headersTimeoutMs: 1000, requestTimeoutMs: 1000, keepAliveTimeoutMs: 200 });
    const { text, ms } = await exchange(port, (s) => s.write('GET / HTTP/1.1\r\nHost: x\r\n\r\n'));
    expect(text).toMatch(/^HTTP\/1\.1 200 OK/);
    expect(ms).toBeLessThan(2000);
  });

  it.each([
    ['an unknown method', 'FOO / HTTP/1.1\r\nHost: x\r\n\r\n', 400],
    ['a malformed request line', 'GET /\u0001 HTTP/1.1\r\nHost: x\r\n\r\n', 400],
    [
      'two different Content-Length headers',
      'POST / HTTP/1.1\r\nHost: x\r\nContent-Length: 1\r\nContent-Length: 2\r\n\r\n{}',
      400,
    ],
    ['headers over 16 KiB', `GET / HTTP/1.1\r\nHost: x\r\nX-Big: ${'a'.repeat(20_000)}\r\n\r\n`, 431],
  ])('given %s, when parsed, then a JSON %i and the connection closes', async (_label, request, status) => {
    const port = await start({ headersTimeoutMs: 1000, requestTimeoutMs: 1000, keepAliveTimeoutMs: 1000 });
    const { text } = await exchange(port, (s) => s.write(request));
    expect(text).toMatch(new RegExp(`^HTTP/1\\.1 ${status} `));
    expect(text).toMatch(/Content-Type: application\/json; charset=utf-8\r\n/);
    expect(JSON.parse(text.slice(text.indexOf('\r\n\r\n') + 4))).toEqual({ detail: expect.any(String) });
  });
});
