import { rawQuery, type Pool, type PoolClient } from '@holdfast/postgres';
import { backoffDelay, describeFailure, type Logger } from '@holdfast/platform';
import type { CredentialStore } from './credential-store.js';

/** The channel control.* triggers notify on every change of keys, tiles and accounts. */
export const CREDENTIALS_CHANNEL = 'holdfast_credentials';

/** How often the LISTEN connection is pinged by default (CREDENTIAL_LISTENER_PING_MS). */
export const DEFAULT_LISTENER_PING_MS = 3_000;

/** The LISTEN connection did not answer its keep-alive `select 1` in time: it is treated as lost. */
export class ListenerSilentError extends Error {
  override readonly name = 'ListenerSilentError';
  readonly isRetriable = true;
}

/**
 * Holds one connection that LISTENs on `holdfast_credentials` and drops the credential cache on every
 * notification. While the connection is down (a server restart, `pg_terminate_backend`) the store
 * serves nothing from cache, and reconnects are attempted with exponential backoff and full jitter
 * (250 ms doubling to 5 s): correctness never depends on this connection, only speed does.
 *
 * A connection can also die silently (a NAT or firewall forgetting it, a host gone without a reset):
 * no error, no notification ever again, and a revoked key would live for the cache's 30 s. So the
 * connection is pinged (`select 1`) every `pingMs`; one that does not answer within `pingMs` is
 * treated as lost: the cache is bypassed at once, and the reconnect re-reads everything (trusting
 * again drops the cache). A revocation is then refused within about 2 × `pingMs`.
 */
export class CredentialListener {
  private client: PoolClient | null = null;
  private timer: NodeJS.Timeout | null = null;
  private pinger: NodeJS.Timeout | null = null;
  private closed = false;
  /** Failed reconnects since the connection was last up. */
  private attempts = 0;

  constructor(
    private readonly pool: Pool,
    private readonly store: CredentialStore,
    private readonly logger: Logger,
    private readonly pingMs = DEFAULT_LISTENER_PING_MS,
  ) {}

  async start(): Promise<void> {
    await this.connect();
  }

  private async connect(): Promise<void> {
    if (this.closed) return;
    let client: PoolClient | undefined;
    try {
      const c = (client = await this.pool.connect());
      c.on('notification', (msg) => {
        if (msg.channel === CREDENTIALS_CHANNEL) this.store.invalidate();
      });
      c.on('error', (err) => this.lost(c, err));
      c.on('end', () => this.lost(c, new Error('connection ended')));
      this.client = c;
      await rawQuery(c, 'credential-listener.listen', `listen ${CREDENTIALS_CHANNEL}`);
      if (this.client !== c) return; // lost (and released) while listening: `lost` retries
      // Trusting again drops the cache: a change made while the connection was down was never notified.
      this.store.setTrusted(true);
      this.keepAlive(c);
      if (this.attempts) this.logger.info('credential_listener_reconnected', { attempts: this.attempts });
      this.attempts = 0;
    } catch (err) {
      if (client && this.client === client) {
        this.client = null;
        client.release(err as Error);
      }
      this.logger.warn('credential_listener_connect_failed', describeFailure(err));
      this.retry();
    }
  }

  /** Pings `client` every `pingMs`; no answer within `pingMs` is a lost connection. */
  private keepAlive(client: PoolClient): void {
    let inFlight = false;
    this.pinger = setInterval(() => {
      if (inFlight || this.client !== client) return;
      inFlight = true;
      const deadline = setTimeout(
        () => this.lost(client, new ListenerSilentError(`no answer to a ping within ${this.pingMs} ms`)),
        this.pingMs,
      );
      rawQuery(client, 'credential-listener.ping', 'select 1')
        .catch((err: unknown) => this.lost(client, err instanceof Error ? err : new Error(String(err))))
        .finally(() => {
          clearTimeout(deadline);
          inFlight = false;
        });
    }, this.pingMs);
    this.pinger.unref();
  }

  private lost(client: PoolClient, err: Error): void {
    if (this.client !== client) return;
    this.client = null;
    if (this.pinger) clearInterval(this.pinger);
    this.pinger = null;
    this.store.setTrusted(false);
    if (this.closed) return;
    this.logger.warn('credential_listener_lost', describeFailure(err));
    client.release(err);
    this.retry();
  }

  private retry(): void {
    if (this.closed || this.timer) return;
    const delay = backoffDelay(this.attempts++, { baseMs: 250, maxMs: 5_000 });
    this.timer = setTimeout(() => {
      this.timer = null;
      void this.connect();
    }, delay);
    this.timer.unref();
  }

  close(): Promise<void> {
    this.closed = true;
    if (this.timer) clearTimeout(this.timer);
    if (this.pinger) clearInterval(this.pinger);
    const client = this.client;
    this.client = null;
    this.store.setTrusted(false);
    // Ended rather than unlistened and handed back: a LISTEN connection never goes back to the
    // pool, and a silent one cannot hold the shutdown up for a query timeout.
    if (client) client.release(new Error('credential listener closed'));
    return Promise.resolve();
  }
}
