import type { Database, Pool } from '@holdfast/postgres';
import type { Kysely } from 'kysely';
import type { Appender, SinglePartitionAppender } from '@holdfast/kafka';
import type { Logger } from '@holdfast/platform';
import type { AuthDeps } from '../auth/authenticate.js';
import type { Clock } from '../clock.js';
import type { EventFactory } from '../ingest/event-factory.js';
import type { GatewayMetrics } from '../metrics.js';
import type { SuppressionCache } from '../privacy/suppression-cache.js';

/** How long POST /webhooks/custom-api waits for the projector before answering 503. */
export const DEFAULT_PROJECTION_WAIT_MS = 5_000;

/** Retry-After (seconds) of the 503 answered when the projector is behind. */
export const NOT_CAUGHT_UP_RETRY_AFTER_S = 2;

/** What the inbound webhook routes use: a subset of the gateway context plus its authentication. */
export interface WebhooksContext extends AuthDeps {
  readonly pool: Pool;
  readonly db: Kysely<Database>;
  readonly appender: Appender;
  /** A webhook call appends one record (one partition): one idempotent produce, no transaction. */
  readonly recordAppender?: SinglePartitionAppender;
  readonly events: EventFactory;
  readonly clock: Clock;
  readonly logger: Logger;
  readonly metrics: Pick<GatewayMetrics, 'customApiDuplicates' | 'rows'>;
  /** Suppressed identifiers: an event or submission naming one is dropped (SUPPRESSED_ANSWER). */
  readonly suppressions: SuppressionCache;
  readonly config: { readonly readModelSchema: string };
  /** Bound of the read-your-writes wait (default 5 s). */
  readonly projectionWaitMs?: number;
}

/**
 * The answer to a webhook naming a suppressed (erased) person: received, dropped, nothing stored. An
 * added shape beside the spec's duplicate answer, so a client can tell it from an error.
 */
export const SUPPRESSED_ANSWER = Object.freeze({
  received: true,
  suppressed: true,
  code: 'suppressed_identity',
});

const MAX_REQUEST_ID = 200;

/** X-Request-Id, trimmed and bounded, or null. */
export function requestIdOf(header: string | undefined): string | null {
  const v = header?.trim();
  return v ? v.slice(0, MAX_REQUEST_ID) : null;
}
