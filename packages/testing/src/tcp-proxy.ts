import { createServer, connect, type Server, type Socket } from 'node:net';
import type { AddressInfo } from 'node:net';

/**
 * A TCP proxy on a local port in front of a real dependency (registry, PostgreSQL, a broker), for
 * outage tests that must never touch the shared stack: while `refusing`, new connections are closed at
 * once and `cut()` drops the open ones; `blackhole()` keeps every connection open but carries no byte
 * either way (a network that silently drops packets: nothing answers, nothing fails);
 * `forward()` lets them through again. What was sent during a blackhole is held and delivered when it
 * ends, as TCP retransmits once the path is back: a connection its peer gave up on meanwhile is gone,
 * one still open carries on where it stopped, never with a gap in its byte stream.
 *
 * @example
 * const proxy = await TcpProxy.start('127.0.0.1', 8081, { forwarding: false });
 * // point the service at proxy.port; later:
 * proxy.forward();
 */
export class TcpProxy {
  private forwarding: boolean;
  private swallowing = false;
  private readonly open = new Set<Socket>();
  /** Bytes held during a blackhole, per socket they are for, in order. */
  private readonly held = new Map<Socket, Buffer[]>();
  /** Connections accepted during a blackhole: connected upstream when it ends. */
  private readonly waiting: { client: Socket; chunks: Buffer[] }[] = [];

  private constructor(
    private readonly server: Server,
    readonly port: number,
    forwarding: boolean,
    private readonly upstreamHost: string,
    private readonly upstreamPort: number,
  ) {
    this.forwarding = forwarding;
  }

  static async start(
    upstreamHost: string,
    upstreamPort: number,
    { forwarding = true, port = 0 } = {},
  ): Promise<TcpProxy> {
    const state: { proxy?: TcpProxy } = {};
    const server = createServer((client) => {
      const proxy = state.proxy!;
      if (proxy.swallowing) {
        // Accepted and then never answered: the connect succeeds, the handshake hangs (until the
        // blackhole ends, when it goes upstream with what it sent meanwhile).
        const w = { client, chunks: [] as Buffer[] };
        proxy.waiting.push(w);
        proxy.open.add(client);
        client.on('close', () => {
          proxy.open.delete(client);
          const i = proxy.waiting.indexOf(w);
          if (i >= 0) proxy.waiting.splice(i, 1);
        });
        client.on('error', () => client.destroy());
        client.on('data', (chunk: Buffer) => w.chunks.push(chunk));
        return;
      }
      if (!proxy.forwarding) return void client.destroy();
      proxy.pipe(client, []);
    });
    await new Promise<void>((resolve) => server.listen(port, '127.0.0.1', resolve));
    return (state.proxy = new TcpProxy(
      server,
      (server.address() as AddressInfo).port,
      forwarding,
      upstreamHost,
      upstreamPort,
    ));
  }

  /** Connects `client` upstream, first sending what it sent before (`early`). */
  private pipe(client: Socket, early: readonly Buffer[]): void {
    client.removeAllListeners('data');
    const upstream = connect(this.upstreamPort, this.upstreamHost);
    for (const c of early) upstream.write(c);
    for (const s of [client, upstream]) {
      this.open.add(s);
      s.on('close', () => {
        this.open.delete(s);
        this.held.delete(s);
      });
      s.on('error', () => {
        client.destroy();
        upstream.destroy();
      });
      // While blackholed, what arrives is held instead of forwarded.
      const other = s === client ? upstream : client;
      s.on('data', (chunk: Buffer) => {
        if (!this.swallowing) return void other.write(chunk);
        const q = this.held.get(other);
        if (q) q.push(chunk);
        else this.held.set(other, [chunk]);
      });
      s.on('end', () => other.end());
    }
  }

  /** Lets new connections through to the upstream (and ends a blackhole). */
  forward(): void {
    this.forwarding = true;
    this.endBlackhole();
  }

  /** Delivers what was held, and connects what waited, in order. */
  private endBlackhole(): void {
    if (!this.swallowing) return;
    this.swallowing = false;
    for (const [target, chunks] of this.held) if (target.writable) for (const c of chunks) target.write(c);
    this.held.clear();
    for (const w of this.waiting.splice(0)) if (!w.client.destroyed) this.pipe(w.client, w.chunks);
  }

  /**
   * Stops carrying bytes without closing anything: open connections stay up and silent, new ones are
   * accepted and never answered. What a peer sees when the host behind it vanished without a reset.
   */
  blackhole(): void {
    this.swallowing = true;
  }

  /** Refuses new connections and drops the open ones: the dependency looks down. */
  cut(): void {
    this.forwarding = false;
    this.swallowing = false;
    this.held.clear();
    this.waiting.length = 0;
    for (const s of this.open) s.destroy();
    this.open.clear();
  }

  async close(): Promise<void> {
    this.cut();
    await new Promise<void>((resolve) => this.server.close(() => resolve()));
  }
}
