import { Counter, Histogram, type Registry } from '@holdfast/platform';

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

  onEnqueued(n: number): void {
    this.enqueued.inc(n);
  }

  onAttempt(outcome: 'delivered' | 'retry_scheduled' | 'failed' | 'cancelled', durationMs = 0): void {
    this.attempts.inc({ outcome });
    if (outcome !== 'cancelled') this.seconds.observe(durationMs / 1000);
  }
}
