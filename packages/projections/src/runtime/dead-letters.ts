import { rawQuery, type PoolClient } from '@holdfast/postgres';
import type { DeadLetter } from '@holdfast/kafka';
import { columnsOf } from '../projections/sql-arrays.js';
import { qualified } from '../projection.js';

// The dead letter, its publisher and the holdfast.dlq topic are shared by every consumer
// (packages/kafka); the projector also keeps its letters in a table, for `holdfast dlq`.
export { kafkaDeadLetterPublisher, type DeadLetter, type DeadLetterPublisher } from '@holdfast/kafka';

/** Records dead letters in read_models.dead_letters, in the caller's transaction (the checkpoint's). */
export async function insertDeadLetters(
  client: PoolClient,
  schema: string,
  letters: readonly DeadLetter[],
): Promise<void> {
  if (!letters.length) return;
  await rawQuery(
    client,
    'dead-letters.insert',
    `insert into ${qualified(schema, 'dead_letters')} (projection, topic, partition, record_offset,
       account_id, reason, record_key, record_value, record_timestamp, request_id)
     select p, t, pa, o, a, r, k, v, to_timestamp(ts / 1000.0), rq
     from unnest($1::text[], $2::text[], $3::int[], $4::bigint[], $5::text[], $6::text[], $7::bytea[],
       $8::bytea[], $9::bigint[], $10::text[]) as x(p, t, pa, o, a, r, k, v, ts, rq)
     on conflict (projection, topic, partition, record_offset) do update set reason = excluded.reason`,
    columnsOf(letters, (d) => [
      d.projection,
      d.topic,
      d.partition,
      d.offset,
      // Records are keyed by account id: the key is the best account hint an undecodable record has.
      d.key ? text(d.key.toString('utf8')) : null,
      text(d.reason),
      d.key,
      d.value,
      d.timestamp,
      d.requestId ?? null,
    ]),
  );
}

// PostgreSQL text cannot hold NUL; keys and error messages of garbage records may.
const text = (s: string) => s.replaceAll('\u0000', '');
