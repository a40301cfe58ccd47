import type { Logger } from '@holdfast/platform';
import type { Clock } from './clock.js';
import type { RateCounter } from './limits/rate-counter.js';
// Windows are at most a minute long; an hour of slack keeps deletes away from live windows.
const COUNTER_KEEP_MS = 3_600_000;

/**
 * Periodic clean-up of the gateway's own rows, run by every gateway (the delete is idempotent, so
 * several gateways running it is harmless): ended rate-limit windows. Batch records past their 90
 * days are the projector's to delete (it owns read_models.ingest_batches).
 */
export class Janitor {
  private timer: NodeJS.Timeout | null = null;

  constructor(
    private readonly counter: RateCounter,
    private readonly clock: Clock,
    private readonly logger: Logger,
  ) {}

  start(intervalMs: number): void {
    this.timer = setInterval(() => void this.runOnce(), intervalMs);
    this.timer.unref();
  }

  /** One pass; never throws. Returns what was deleted. */
  async runOnce(): Promise<{ counters: number }> {
    const now = this.clock.now().getTime();
    try {
      const counters = await this.counter.purge(new Date(now - COUNTER_KEEP_MS));
      if (counters) this.logger.info('janitor_purged', { counters });
      return { counters };
    } catch (err) {
      this.logger.warn('janitor_failed', { error: (err as Error).message });
      return { counters: 0 };
    }
  }

  stop(): void {
    if (this.timer) clearInterval(this.timer);
  }
}
