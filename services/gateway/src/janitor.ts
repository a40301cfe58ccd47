import type { Logger } from '@holdfast/platform';
import type { Clock } from './clock.js';
import type { RateCounter } from './limits/rate-counter.js';
import { LIMITS } from './limits/policy.js';
import type { ReadModels } from './read-models.js';

const DAY_MS = 86_400_000;
// Windows are at most a minute long; an hour of slack keeps deletes away from live windows.
const COUNTER_KEEP_MS = 3_600_000;

/**
 * Periodic clean-up, run by every gateway (the deletes are idempotent, so several gateways running
 * it is harmless): ended rate-limit windows, and batch records past their 90-day retention. The
 * retention purge lives here rather than in the projector because it is a policy of the ingest
 * surface; GET /ingest/batches also filters on the same 90 days, so what clients see does not depend
 * on when the purge last ran.
 */
export class Janitor {
  private timer: NodeJS.Timeout | null = null;

  constructor(
    private readonly counter: RateCounter,
    private readonly readModels: ReadModels,
    private readonly clock: Clock,
    private readonly logger: Logger,
  ) {}

  start(intervalMs: number): void {
    this.timer = setInterval(() => void this.runOnce(), intervalMs);
    this.timer.unref();
  }

  /** One pass; never throws. Returns what was deleted. */
  async runOnce(): Promise<{ counters: number; batches: number }> {
    const now = this.clock.now().getTime();
    try {
      const counters = await this.counter.purge(new Date(now - COUNTER_KEEP_MS));
      const batches = await this.readModels.purgeBatches(new Date(now - LIMITS.batchRetentionDays * DAY_MS));
      if (counters || batches) this.logger.info('janitor_purged', { counters, batches });
      return { counters, batches };
    } catch (err) {
      this.logger.warn('janitor_failed', { error: (err as Error).message });
      return { counters: 0, batches: 0 };
    }
  }

  stop(): void {
    if (this.timer) clearInterval(this.timer);
  }
}
