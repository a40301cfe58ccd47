// Peers that misbehave without failing, for the fairness and chaos benchmarks: an SMTP relay that
// trickles its greeting a byte at a time and never finishes it (an inactivity timeout never fires),
// and an HTTP receiver that reads a request and never answers (a tarpit).
import { once } from 'node:events';
import { createServer as createHttpServer, type Server as HttpServer } from 'node:http';
import { createServer, type Server, type Socket } from 'node:net';
import type { AddressInfo } from 'node:net';

export interface TricklingRelay {
  readonly port: number;
  /** Connections accepted so far. */
  readonly accepted: () => number;
  /** Connections open now. */
  readonly open: () => number;
  close(): Promise<void>;
}

/**
 * An SMTP relay that accepts a connection and sends a multi-line 220 greeting one byte every
 * `intervalMs`, never its last line: the client sees traffic (no inactivity timeout fires) and never
 * gets to say EHLO. Only a total deadline ends such a send.
 */
export async function startTricklingSmtpRelay(intervalMs = 500): Promise<TricklingRelay> {
  const sockets = new Set<Socket>();
  let accepted = 0;
  const server: Server = createServer((socket) => {
    accepted++;
    sockets.add(socket);
    const line = '220-trickle.example.com still greeting\r\n';
    let i = 0;
    const timer = setInterval(() => {
      if (socket.writable) socket.write(line[i++ % line.length]!);
    }, intervalMs);
    socket.on('data', () => {});
    socket.on('error', () => socket.destroy());
    socket.on('close', () => {
      clearInterval(timer);
      sockets.delete(socket);
    });
  });
  server.listen(0, '127.0.0.1');
  await once(server, 'listening');
  return {
    port: (server.address() as AddressInfo).port,
    accepted: () => accepted,
    open: () => sockets.size,
    close: async () => {
      for (const s of sockets) s.destroy();
      await new Promise<void>((resolve) => server.close(() => resolve()));
    },
  };
}

export interface TarpitReceiver {
  readonly url: string;
  /** Requests read (and never answered) so far. */
  readonly received: () => number;
  close(): Promise<void>;
}

/** An HTTP receiver that reads every request's body and never answers: the sender's timeout must fire. */
export async function startTarpitReceiver(): Promise<TarpitReceiver> {
  let received = 0;
  const server: HttpServer = createHttpServer((req) => {
    req.on('data', () => {});
    req.on('end', () => void received++);
  });
  server.listen(0, '127.0.0.1');
  await once(server, 'listening');
  return {
    url: `http://127.0.0.1:${(server.address() as AddressInfo).port}/hooks`,
    received: () => received,
    close: async () => {
      server.closeAllConnections();
      await new Promise<void>((resolve) => server.close(() => resolve()));
    },
  };
}
