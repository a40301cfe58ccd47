import { rawQuery } from '@holdfast/postgres';
import type { IngestBatchRecorded } from '@holdfast/contracts';
import { batchRecordsKeptSince } from '@holdfast/domain';
import { qualified, type Projection } from '../projection.js';
import { columnsOf, textArrayLiteral } from './sql-arrays.js';

const batchIdOf = (v: IngestBatchRecorded) => v.metadata.batch_id ?? v.metadata.event_id;

/**
 * The record of every ingest call → read_models.ingest_batches, keyed by the batch id (the event id
 * when a record carries none). A later record of the same batch (e.g. a status change) replaces it.
 * Records past the spec's 90 days are deleted by `expire` (this projection owns the table, so the
 * purge is its own; GET /ingest/batches filters on the same 90 days whenever the purge last ran).
 */
export const ingestBatchesProjection: Projection<'IngestBatchRecorded'> = {
  name: 'ingest-batches',
  topic: 'holdfast.ingest-batches',
  handles: ['IngestBatchRecorded'],
  tables: ['ingest_batches'],
  async expire(pool, schema, now) {
    const r = await rawQuery(
      pool,
      'ingest-batches.expire',
      `delete from ${qualified(schema, 'ingest_batches')} where received_at < $1`,
      [batchRecordsKeptSince(now)],
    );
    return r.rowCount ?? 0;
  },
  async apply(events, tx) {
    const last = new Map<string, IngestBatchRecorded>();
    for (const e of events) last.set(batchIdOf(e.value), e.value);
    await tx.client.query(
      tx.named(
        'ingest-batches.upsert',
        (s) => `insert into ${qualified(s, 'ingest_batches')} as b (batch_id, account_id, endpoint,
         dry_run, status, http_status, received, accepted, dropped, error_codes, warning_codes, errors,
         duration_ms, sync_task_id, key_id, request_id, received_at)
       select id, a, ep, dr, st, hs, rc, ac, dp, ec::text[], wc::text[], er::jsonb, dm, sy, k, rq, ra
       from unnest($1::text[], $2::uuid[], $3::text[], $4::boolean[], $5::text[], $6::int[], $7::int[],
         $8::int[], $9::int[], $10::text[], $11::text[], $12::text[], $13::int[], $14::text[],
         $15::text[], $16::text[], $17::timestamptz[])
         as p(id, a, ep, dr, st, hs, rc, ac, dp, ec, wc, er, dm, sy, k, rq, ra)
       on conflict (batch_id) do update set
         account_id = excluded.account_id, endpoint = excluded.endpoint, dry_run = excluded.dry_run,
         status = excluded.status, http_status = excluded.http_status, received = excluded.received,
         accepted = excluded.accepted, dropped = excluded.dropped, error_codes = excluded.error_codes,
         warning_codes = excluded.warning_codes, errors = excluded.errors,
         duration_ms = excluded.duration_ms, sync_task_id = excluded.sync_task_id,
         key_id = excluded.key_id, request_id = excluded.request_id, received_at = excluded.received_at`,
      ),
      columnsOf(last.values(), (v) => [
        batchIdOf(v),
        v.metadata.account_id,
        v.endpoint,
        v.dry_run,
        v.status,
        v.http_status,
        v.received,
        v.accepted,
        v.dropped,
        textArrayLiteral(v.error_codes),
        textArrayLiteral(v.warning_codes),
        v.errors_json,
        v.duration_ms,
        v.sync_task_id,
        v.metadata.key_id,
        v.metadata.request_id,
        v.metadata.received_at,
      ]),
    );
  },
};
