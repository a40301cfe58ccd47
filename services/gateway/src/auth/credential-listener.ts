import type { Pool, PoolClient } from '@holdfast/db';
import type { Logger } from '@holdfast/platform';
import type { CredentialStore } from './credential-store.js';

/** The channel control.* triggers notify on every change of keys, tiles and accounts. */
export const CREDENTIALS_CHANNEL = 'holdfast_credentials';

/**
 * Holds one connection that LISTENs on `holdfast_credentials` and drops the credential cache on every
 * notification. While the connection is down the store serves nothing from cache, and a reconnect
 * is attempted every second: correctness never depends on this connection, only speed does.
 */
export class CredentialListener {
  private client: PoolClient | null = null;
  private timer: NodeJS.Timeout | null = null;
  private closed = false;

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
    try {
      const client = await this.pool.connect();
      client.on('notification', (msg) => {
        if (msg.channel === CREDENTIALS_CHANNEL) this.store.invalidate();
      });
      client.on('error', (err) => this.lost(client, err));
      client.on('end', () => this.lost(client, new Error('connection ended')));
      await client.query(`listen ${CREDENTIALS_CHANNEL}`);
      this.client = client;
      this.store.setTrusted(true);
    } catch (err) {
      this.logger.warn('credential_listener_connect_failed', { error: (err as Error).message });
      this.retry();
    }
  }

  private lost(client: PoolClient, err: Error): void {
    if (this.client !== client) return;
    this.client = null;
    this.store.setTrusted(false);
    if (this.closed) return;
    this.logger.warn('credential_listener_lost', { error: err.message });
    client.release(err);
    this.retry();
  }

  private retry(): void {
    if (this.closed || this.timer) return;
    this.timer = setTimeout(() => {
      this.timer = null;
      void this.connect();
    }, 1000);
    this.timer.unref();
  }

  async close(): Promise<void> {
    this.closed = true;
    if (this.timer) clearTimeout(this.timer);
    const client = this.client;
    this.client = null;
    this.store.setTrusted(false);
    if (client) {
      await client.query(`unlisten ${CREDENTIALS_CHANNEL}`).catch(() => {});
      client.release();
    }
  }
}
