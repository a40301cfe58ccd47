// Reads of one account's activity in the read models, shared by the gateway (GET /ingest/batches,
// GET /ingest/health) and the console's activity pages, so both list exactly the same rows.
import type { Kysely } from 'kysely';
import type { ReadModelTables } from './read-model-tables.js';

/** The columns of a batch record that are listed (everything but the account and the raw time). */
const BATCH_LIST_COLUMNS = [
  'batch_id',
  'endpoint',
  'dry_run',
  'status',
  'http_status',
  'received',
  'accepted',
  'dropped',
  'error_codes',
  'warning_codes',
  'errors',
  'duration_ms',
  'sync_task_id',
  'key_id',
  'request_id',
  'received_at',
] as const;

/** The account's most recent batch records received after `since`, newest first. */
export function recentIngestBatches(
  db: Kysely<ReadModelTables>,
  accountId: string,
  limit: number,
  since: Date,
) {
  return db
    .selectFrom('ingest_batches')
    .select(BATCH_LIST_COLUMNS)
    .where('account_id', '=', accountId)
    .where('received_at', '>=', since)
    .orderBy('received_at', 'desc')
    .orderBy('batch_id')
    .limit(limit)
    .execute();
}

/** The store's timezone as the integration set it (PATCH /ingest/account); undefined when never set. */
export async function readStoreTimezone(
  db: Kysely<ReadModelTables>,
  accountId: string,
): Promise<string | null | undefined> {
  const row = await db
    .selectFrom('account_settings')
    .select('store_timezone')
    .where('account_id', '=', accountId)
    .executeTakeFirst();
  return row?.store_timezone;
}

/**
 * The account's dead letters (records the projector could not apply), newest first: what and why,
 * never the raw record (it may carry personal data).
 */
export function accountDeadLetters(db: Kysely<ReadModelTables>, accountId: string, limit: number) {
  return db
    .selectFrom('dead_letters')
    .select(['id', 'projection', 'reason', 'record_timestamp', 'status', 'redriven_at', 'request_id'])
    .where('account_id', '=', accountId)
    .orderBy('record_timestamp', 'desc')
    .limit(limit)
    .execute();
}
