import { NotReadyError } from '@holdfast/platform';
import { missingReadModelTables, type AccountSettingsRow, type IngestBatchRow } from '@holdfast/read-models';
import { ReadModelReader } from './read-model-reader.js';

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
export class ReadModels extends ReadModelReader {
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
    const rows = await this.rows<{ n: number }>(
      `select count(*)::int as n from ${this.s}.orders where account_id = $1`,
      [accountId],
    );
    return rows[0]?.n ?? 0;
  }

  async storeTimezone(accountId: string): Promise<string | null> {
    const rows = await this.rows<Pick<AccountSettingsRow, 'store_timezone'>>(
      `select store_timezone from ${this.s}.account_settings where account_id = $1`,
      [accountId],
    );
    return rows[0]?.store_timezone ?? null;
  }

  /** The account's most recent batch records received after `since`, newest first. */
  async recentBatches(accountId: string, limit: number, since: Date): Promise<BatchListItem[]> {
    const rows = await this.rows<Omit<IngestBatchRow, 'account_id'>>(
      `select batch_id, endpoint, dry_run, status, http_status, received, accepted, dropped,
              error_codes, warning_codes, errors, duration_ms, sync_task_id, key_id, request_id, received_at
         from ${this.s}.ingest_batches
        where account_id = $1 and received_at >= $2
        order by received_at desc, batch_id
        limit $3`,
      [accountId, since, limit],
    );
    return rows.map((r) => ({ ...r, received_at: new Date(r.received_at).toISOString() }));
  }
}
