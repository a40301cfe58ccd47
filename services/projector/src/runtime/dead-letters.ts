import type { EventCodec } from '@holdfast/contracts';
import type { PoolClient } from '@holdfast/db';
import { topicName, type Appender } from '@holdfast/kafka';
import { columnsOf } from '../projections/sql-arrays.js';
import { qualified } from '../projection.js';

/** A record a projection can never apply, with where it sits in the log and why. */
export interface DeadLetter {
  readonly projection: string;
  /** Logical topic name (without the deployment's prefix). */
  readonly topic: string;
  readonly partition: number;
  readonly offset: string;
  readonly key: Buffer | null;
  readonly value: Buffer | null;
  /** Kafka record timestamp (ms since the epoch, as text). */
  readonly timestamp: string;
  readonly reason: string;
}

/** Where dead letters are announced besides the table: the holdfast.dlq topic. */
export interface DeadLetterPublisher {
  publish(letters: readonly DeadLetter[]): Promise<void>;
}

/** Records dead letters in read_models.dead_letters, in the caller's transaction (the checkpoint's). */
export async function insertDeadLetters(
  client: PoolClient,
  schema: string,
  letters: readonly DeadLetter[],
): Promise<void> {
  if (!letters.length) return;
  await client.query(
    `insert into ${qualified(schema, 'dead_letters')} (projection, topic, partition, record_offset,
       account_id, reason, record_key, record_value, record_timestamp)
     select p, t, pa, o, a, r, k, v, to_timestamp(ts / 1000.0)
     from unnest($1::text[], $2::text[], $3::int[], $4::bigint[], $5::text[], $6::text[], $7::bytea[],
       $8::bytea[], $9::bigint[]) as x(p, t, pa, o, a, r, k, v, ts)
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
    ]),
  );
}

// PostgreSQL text cannot hold NUL; keys and error messages of garbage records may.
const text = (s: string) => s.replaceAll('\u0000', '');

/**
 * Publishes DeadLettered records to `<prefix>holdfast.dlq`. It runs before the checkpoint's
 * transaction commits: a crash in between publishes a letter twice (consumers of the topic dedupe on
 * projection/topic/partition/offset), never zero times.
 */
export function kafkaDeadLetterPublisher(
  appender: Appender,
  codec: EventCodec,
  prefix: string,
): DeadLetterPublisher {
  const topic = topicName(prefix, 'holdfast.dlq');
  return {
    async publish(letters) {
      if (!letters.length) return;
      const failedAt = new Date().toISOString();
      await appender.append(
        letters.map((d) => ({
          topic,
          key: d.key?.toString('utf8') ?? d.projection,
          value: codec.encode('DeadLettered', {
            projection: d.projection,
            topic: d.topic,
            partition: d.partition,
            offset: d.offset,
            key: d.key,
            value: d.value,
            reason: d.reason,
            failed_at: failedAt,
          }),
        })),
      );
    },
  };
}
