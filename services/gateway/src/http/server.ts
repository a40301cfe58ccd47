import { createServer, STATUS_CODES, type RequestListener, type Server } from 'node:http';
import type { Duplex } from 'node:stream';
import type { GatewayConfig } from '../config.js';

type ServerTimeouts = Pick<GatewayConfig, 'headersTimeoutMs' | 'requestTimeoutMs' | 'keepAliveTimeoutMs'>;

/** The answer to a request Node's parser refused before express saw it, by parser error code. */
function statusOf(code: string | undefined): number {
  if (code === 'HPE_HEADER_OVERFLOW') return 431;
  if (code === 'ERR_HTTP_REQUEST_TIMEOUT') return 408;
  return 400;
}

/**
 * Answers what never reaches express (an unknown method, a malformed request line or header, headers
 * over 16 KiB, a request that ran out of time) with the spec's JSON `{detail}` instead of Node's bare
 * text, then closes the connection. Nothing of the request is echoed.
 */
export function answerClientError(err: Error & { code?: string }, socket: Duplex): void {
  const started = (socket as Duplex & { _httpMessage?: { headersSent?: boolean } })._httpMessage;
  if (err.code === 'ECONNRESET' || !socket.writable || started?.headersSent) {
    socket.destroy();
    return;
  }
  const status = statusOf(err.code);
  const reason = STATUS_CODES[status] ?? 'Bad Request';
  const body = JSON.stringify({ detail: reason });
  socket.end(
    `HTTP/1.1 ${status} ${reason}\r\nContent-Type: application/json; charset=utf-8\r\n` +
      `Content-Length: ${Buffer.byteLength(body)}\r\nConnection: close\r\n\r\n${body}`,
  );
}

/**
 * The gateway's HTTP server with its timeouts (a slow client cannot hold a socket):
 * - `headersTimeout`: the request line and headers must arrive within HEADERS_TIMEOUT_MS (slow loris);
 * - `requestTimeout`: the whole request, body included, within REQUEST_TIMEOUT_MS;
 * - `keepAliveTimeout`: an idle keep-alive connection closes after KEEP_ALIVE_TIMEOUT_MS;
 * - the timeouts are checked every second (Node's default is every 30 s, which would let a slow
 *   client stay 30 s past its limit).
 * Parser-level refusals are answered as JSON (`answerClientError`).
 *
 * @example
 * const server = createGatewayServer(gateway.app, config);
 * server.listen(config.port, config.host);
 */
export function createGatewayServer(app: RequestListener, config: ServerTimeouts): Server {
  const server = createServer(
    {
      headersTimeout: config.headersTimeoutMs,
      requestTimeout: config.requestTimeoutMs,
      keepAliveTimeout: config.keepAliveTimeoutMs,
      connectionsCheckingInterval: Math.min(1_000, config.headersTimeoutMs),
    },
    app,
  );
  // Node closes an idle keep-alive socket slightly after keepAliveTimeout; a socket with no traffic at
  // all for the whole request time is closed too (a stalled response reader).
  server.timeout = config.requestTimeoutMs;
  server.on('clientError', answerClientError);
  return server;
}
