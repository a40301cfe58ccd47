import type { Pool } from '@holdfast/postgres';
import { NotReadyError } from '@holdfast/platform';
import {
  missingReadModelTables,
  readStoreTimezone,
  recentIngestBatches,
  type IngestBatchRow,
  type ReadModelTables,
} from '@holdfast/read-models';
import type { Kysely } from 'kysely';
import { orNothingYet, readModelsDb } from './read-side-db.js';

/** One row of read_models.ingest_batches as GET /ingest/batches returns it (the time as ISO text). */
export type BatchListItem = Omit<IngestBatchRow, 'account_id' | 'received_at'> & {
  readonly received_at: string;
};

/**
 * Reads of the projector's read models (the gateway never writes them, nor creates them). Every
 * query filters on the account id. Before the projector (or `holdfast migrate`) has created the
 * schema, the reads answer "nothing yet" instead of failing, and `ready` fails (the gateway's
 * /readyz reports it).
 */
export class ReadModels {
  private readonly db: Kysely<ReadModelTables>;

  constructor(
    private readonly pool: Pool,
    private readonly schema: string,
  ) {
    this.db = readModelsDb(pool, schema);
  }

  /** Readiness: throws until every read-model table exists (the projector's start creates them). */
  async ready(): Promise<void> {
    const missing = await missingReadModelTables(this.pool, this.schema);
    if (missing.length)
      throw new NotReadyError(
        `${missing.length} read-model tables missing in "${this.schema}" (created by the projector's start or holdfast migrate)`,
      );
  }

  /** The account's projected orders. */
  async ordersCount(accountId: string): Promise<number> {
    const row = await orNothingYet(
      () =>
        this.db
          .selectFrom('orders')
          .select((eb) => eb.fn.countAll<number>().as('n'))
          .where('account_id', '=', accountId)
          .executeTakeFirst(),
      undefined,
    );
    return Number(row?.n ?? 0);
  }

  async storeTimezone(accountId: string): Promise<string | null> {
    return (await orNothingYet(() => readStoreTimezone(this.db, accountId), undefined)) ?? null;
  }

  /** The account's most recent batch records received after `since`, newest first. */
  async recentBatches(accountId: string, limit: number, since: Date): Promise<BatchListItem[]> {
    const rows = await orNothingYet(() => recentIngestBatches(this.db, accountId, limit, since), []);
    return rows.map((r) => ({ ...r, received_at: new Date(r.received_at).toISOString() }));
  }
}
