import type { Pool } from '@holdfast/postgres';
import type { SinglePartitionAppender } from '@holdfast/kafka';
import type { Logger } from '@holdfast/platform';
import type { Clock } from '../clock.js';
import type { EventFactory } from '../ingest/event-factory.js';
import type { RateCounter } from '../limits/rate-counter.js';
import type { GatewayMetrics } from '../metrics.js';
import type { SuppressionCache } from '../privacy/suppression-cache.js';

/** What the pixel routes use: a subset of the gateway context plus the shared rate counters. */
export interface PixelContext {
  readonly pool: Pool;
  /**
   * Appends one request's events (one topic, one key: the account id): all visible or none. In the
   * gateway process an IdempotentBatchAppender (one produce request per call, no transaction).
   */
  readonly pixelAppender: SinglePartitionAppender;
  readonly events: EventFactory;
  readonly clock: Clock;
  readonly logger: Logger;
  readonly rateCounter: RateCounter;
  /** Browsers erased with `suppress`: their events are dropped (counted, still a 204). */
  readonly suppressions: Pick<SuppressionCache, 'browserCheck'>;
  readonly metrics: Pick<GatewayMetrics, 'rows'>;
  /**
   * Load shedding: collector appends in flight in this process above which a request's events are
   * dropped quietly (204, spec "quiet drop ... load shedding") instead of queueing behind Kafka.
   * Default 64.
   */
  readonly pixelMaxInFlight?: number;
  /**
   * How long the oldest append in flight may wait before the log counts as away: new requests are
   * then answered 503 + Retry-After instead of queueing or being shed (PIXEL_APPEND_STALL_MS,
   * default 2 s).
   */
  readonly pixelAppendStallMs?: number;
  /** How long pixel keys and origins are cached (at most 1 s; default 1 s). */
  readonly pixelKeyCacheMs?: number;
}
