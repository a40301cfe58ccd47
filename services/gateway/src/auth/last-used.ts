import { createDb, type Database, type Pool } from '@holdfast/postgres';
import type { Kysely } from 'kysely';
import type { Logger } from '@holdfast/platform';
import type { Clock } from '../clock.js';

/**
 * Writes api_keys.last_used_at in the background, at most once per flush interval for all keys used
 * since the last flush. Why not per request: a write per request would cost a round trip, and every
 * write to control.api_keys fires the `holdfast_credentials` notification that empties every
 * gateway's credential cache.
 */
export class LastUsedTracker {
  private pending = new Set<string>();
  private timer: NodeJS.Timeout | null = null;
  private readonly db: Kysely<Database>;

  constructor(
    pool: Pool,
    private readonly clock: Clock,
    private readonly logger: Logger,
    private readonly intervalMs: number,
  ) {
    this.db = createDb(pool);
  }

  touch(keyId: string): void {
    this.pending.add(keyId);
  }

  start(): void {
    this.timer = setInterval(() => void this.flush(), this.intervalMs);
    this.timer.unref();
  }

  /** Writes the pending keys' last use (now); never throws. */
  async flush(): Promise<void> {
    if (!this.pending.size) return;
    const ids = [...this.pending];
    this.pending = new Set();
    try {
      const now = this.clock.now();
      await this.db
        .updateTable('control.api_keys')
        .set({ last_used_at: now })
        .where('id', 'in', ids)
        .where((eb) => eb.or([eb('last_used_at', 'is', null), eb('last_used_at', '<', now)]))
        .execute();
    } catch (err) {
      this.logger.warn('last_used_flush_failed', { keys: ids.length, error: (err as Error).message });
    }
  }

  async close(): Promise<void> {
    if (this.timer) clearInterval(this.timer);
    await this.flush();
  }
}
