import { keptSince } from '../retention/retention-horizon.js';

/** The spec's retention of ingest batch records ("Records are retained 90 days"). */
export const BATCH_RECORD_RETENTION_DAYS = 90;

/**
 * The oldest `received_at` a batch record may have at `now` and still be kept (and listed): older
 * ones are expired. GET /ingest/batches filters on it and the projector's retention pass deletes
 * below it, so what a client sees does not depend on when the purge last ran.
 *
 * @example
 * batchRecordsKeptSince(new Date('2026-04-01T00:00:00Z')) // 2026-01-01T00:00:00.000Z
 */
export function batchRecordsKeptSince(now: Date): Date {
  return keptSince(now, BATCH_RECORD_RETENTION_DAYS);
}
