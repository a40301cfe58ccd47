import { createServer, connect, type Server, type Socket } from 'node:net';
import type { AddressInfo } from 'node:net';

/**
 * A TCP proxy on a local port in front of a real dependency (registry, PostgreSQL, a broker), for
 * outage tests that must never touch the shared stack: while `refusing`, new connections are closed at
 * once and `cut()` drops the open ones; `blackhole()` keeps every connection open but carries no byte
 * either way (a host that vanished without a reset: nothing answers, nothing fails);
 * `forward()` lets them through again.
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

  private constructor(
    private readonly server: Server,
    readonly port: number,
    forwarding: boolean,
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
        // Accepted and then never answered: the connect succeeds, the handshake hangs.
        proxy.open.add(client);
        client.on('close', () => proxy.open.delete(client));
        client.on('error', () => client.destroy());
        client.on('data', () => {});
        return;
      }
      if (!proxy.forwarding) return void client.destroy();
      const upstream = connect(upstreamPort, upstreamHost);
      for (const s of [client, upstream]) {
        proxy.open.add(s);
        s.on('close', () => proxy.open.delete(s));
        s.on('error', () => {
          client.destroy();
          upstream.destroy();
        });
        // While blackholed, what arrives is dropped instead of forwarded.
        const other = s === client ? upstream : client;
        s.on('data', (chunk: Buffer) => {
          if (!proxy.swallowing) other.write(chunk);
        });
        s.on('end', () => other.end());
      }
    });
    await new Promise<void>((resolve) => server.listen(port, '127.0.0.1', resolve));
    return (state.proxy = new TcpProxy(server, (server.address() as AddressInfo).port, forwarding));
  }

  /** Lets new connections through to the upstream (and ends a blackhole). */
  forward(): void {
    this.forwarding = true;
    this.swallowing = false;
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
    for (const s of this.open) s.destroy();
    this.open.clear();
  }

  async close(): Promise<void> {
    this.cut();
    await new Promise<void>((resolve) => this.server.close(() => resolve()));
  }
}
