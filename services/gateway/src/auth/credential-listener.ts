import { rawQuery, type Pool, type PoolClient } from '@holdfast/db';
import { backoffDelay, describeFailure, type Logger } from '@holdfast/platform';
import type { CredentialStore } from './credential-store.js';

/** The channel control.* triggers notify on every change of keys, tiles and accounts. */
export const CREDENTIALS_CHANNEL = 'holdfast_credentials';

/**
 * Holds one connection that LISTENs on `holdfast_credentials` and drops the credential cache on every
 * notification. While the connection is down (a server restart, `pg_terminate_backend`) the store
 * serves nothing from cache, and reconnects are attempted with exponential backoff and full jitter
 * (250 ms doubling to 5 s): correctness never depends on this connection, only speed does.
 */
export class CredentialListener {
  private client: PoolClient | null = null;
  private timer: NodeJS.Timeout | null = null;
  private closed = false;
  /** Failed reconnects since the connection was last up. */
  private attempts = 0;

  constructor(
    private readonly pool: Pool,
    private readonly store: CredentialStore,
    private readonly logger: Logger,
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

  private lost(client: PoolClient, err: Error): void {
    if (this.client !== client) return;
    this.client = null;
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

  async close(): Promise<void> {
    this.closed = true;
    if (this.timer) clearTimeout(this.timer);
    const client = this.client;
    this.client = null;
    this.store.setTrusted(false);
    if (client) {
      await rawQuery(client, 'credential-listener.unlisten', `unlisten ${CREDENTIALS_CHANNEL}`).catch(
        () => {},
      );
      client.release();
    }
  }
}
