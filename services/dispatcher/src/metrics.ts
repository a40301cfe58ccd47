import { createDb, type Pool } from '@holdfast/postgres';
import { Counter, Gauge, Histogram, type Registry } from '@holdfast/platform';

/** The dispatcher's Prometheus metrics. */
export class DispatcherMetrics {
  private readonly enqueued: Counter;
  private readonly attempts: Counter<'outcome'>;
  private readonly seconds: Histogram;

  constructor(registry: Registry) {
    this.enqueued = new Counter({
      name: 'holdfast_webhook_deliveries_enqueued_total',
      help: 'Deliveries created (one per campaign.sent event and active subscription).',
      registers: [registry],
    });
    this.attempts = new Counter({
      name: 'holdfast_webhook_attempts_total',
      help: 'Delivery attempts by outcome: delivered, retry_scheduled, failed (retries used up), cancelled.',
      labelNames: ['outcome'],
      registers: [registry],
    });
    this.seconds = new Histogram({
      name: 'holdfast_webhook_attempt_seconds',
      help: 'Duration of one delivery attempt (POST to the receiver).',
      buckets: [0.01, 0.05, 0.1, 0.25, 0.5, 1, 2.5, 5, 10],
      registers: [registry],
    });
  }

  /**
   * Adds the webhook backlog, read from PostgreSQL at scrape time: `holdfast_webhook_backlog_deliveries`
   * (deliveries not yet delivered, failed or cancelled: pending, due or waiting for a retry) and
   * `holdfast_webhook_oldest_undelivered_age_seconds` (age of the oldest of them by the injected clock;
   * 0 when none), and `holdfast_webhook_subscriptions_quarantined` (subscriptions set aside until an
   * operator lifts the quarantine). A scrape while PostgreSQL is away leaves them out.
   */
  watchBacklog(registry: Registry, pool: Pool, now: () => Date = () => new Date()): void {
    const db = createDb(pool);
    let pending: Promise<{ count: number; oldest: Date | null }> | undefined;
    // Both gauges are collected in one scrape: one query serves them.
    const backlog = () =>
      (pending ??= db
        .selectFrom('dispatcher.deliveries')
        .select((eb) => [
          eb.fn.countAll<number>().as('count'),
          eb.fn.min<Date | null>('created_at').as('oldest'),
        ])
        .where('status', '=', 'pending')
        .executeTakeFirstOrThrow()
        .finally(() => setTimeout(() => (pending = undefined), 100).unref()));
    new Gauge({
      name: 'holdfast_webhook_backlog_deliveries',
      help: 'Webhook deliveries not yet delivered (pending first attempt or a retry).',
      registers: [registry],
      async collect() {
        const b = await backlog().catch(() => undefined);
        if (b) this.set(b.count);
        else this.reset();
      },
    });
    new Gauge({
      name: 'holdfast_webhook_oldest_undelivered_age_seconds',
      help: 'Age of the oldest webhook delivery not yet delivered (0 when none).',
      registers: [registry],
      async collect() {
        const b = await backlog().catch(() => undefined);
        if (!b) return this.reset();
        this.set(b.oldest ? Math.max(0, (now().getTime() - b.oldest.getTime()) / 1000) : 0);
      },
    });
    new Gauge({
      name: 'holdfast_webhook_subscriptions_quarantined',
      help: 'Webhook subscriptions quarantined (deliveries parked: e.g. a signing secret that cannot be opened).',
      registers: [registry],
      async collect() {
        const q = await db
          .selectFrom('dispatcher.subscription_quarantine')
          .select((eb) => eb.fn.countAll<number>().as('n'))
          .executeTakeFirstOrThrow()
          .catch(() => undefined);
        if (q) this.set(Number(q.n));
        else this.reset();
      },
    });
  }

  onEnqueued(n: number): void {
    this.enqueued.inc(n);
  }

  onAttempt(outcome: 'delivered' | 'retry_scheduled' | 'failed' | 'cancelled', durationMs = 0): void {
    this.attempts.inc({ outcome });
    if (outcome !== 'cancelled') this.seconds.observe(durationMs / 1000);
  }
}
