import type { Kysely } from 'kysely';
import type { Database, Pool } from '@holdfast/postgres';
import type { LogPositionSource } from '@holdfast/kafka';
import type { GatewayConfig } from './config.js';
import type { IngestRouteDeps } from './ingest/ingest-route.js';
import type { SuppressionCache } from './privacy/suppression-cache.js';
import type { ReadModels } from './read-models.js';

/** Everything a route factory may use, built once by `createGateway`. */
export interface GatewayContext extends IngestRouteDeps {
  readonly config: GatewayConfig;
  readonly pool: Pool;
  readonly db: Kysely<Database>;
  readonly readModels: ReadModels;
  /** Where POST /ingest/sync reads its barrier (the log's high watermark for the account). */
  readonly logPositions: LogPositionSource;
  /** The account's suppressed identifiers (erasures with `suppress`): rows naming one are dropped. */
  readonly suppressions: SuppressionCache;
}
