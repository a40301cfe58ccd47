import type { EventCodec } from '@holdfast/contracts';
import type { Appender } from './appender.js';
import type { ConsumedRecord } from './ports.js';
import { REQUEST_ID_HEADER, requestIdOfRecord } from './record-headers.js';
import { topicName } from './topics.js';

/** A record a consumer can never apply, with where it sits in the log and why. */
export interface DeadLetter
  // Where it sits and what it held, as consumed; the timestamp is the record's (ms since the epoch, as text).
  extends Pick<ConsumedRecord, 'partition' | 'offset' | 'key' | 'value' | 'timestamp'> {
  /** Who gave up on it: a projection name, `dispatcher.deliveries`, `recompute.sync-commands`. */
  readonly projection: string;
  /** Logical topic name (without the deployment's prefix), unlike the consumed record's. */
  readonly topic: string;
  readonly reason: string;
  /** The X-Request-Id the record was appended under (its holdfast-request-id header), if any. */
  readonly requestId?: string;
}

/** Where dead letters are announced: the holdfast.dlq topic (and, for projections, a table too). */
export interface DeadLetterPublisher {
  publish(letters: readonly DeadLetter[]): Promise<void>;
}

/**
 * A dead letter for `record` as consumed (physical topic) under `logicalTopic`.
 *
 * @example
 * deadLetterOf('dispatcher.deliveries', 'holdfast.campaigns', record, 'undecodable: ...');
 */
export function deadLetterOf(
  consumer: string,
  logicalTopic: string,
  record: ConsumedRecord,
  reason: string,
): DeadLetter {
  return {
    projection: consumer,
    topic: logicalTopic,
    partition: record.partition,
    offset: record.offset,
    key: record.key,
    value: record.value,
    timestamp: record.timestamp,
    reason,
    ...withRequestId(record),
  };
}

/**
 * Publishes DeadLettered records to `<prefix>holdfast.dlq`. Callers publish before the transaction
 * that moves their checkpoint commits: a crash in between publishes a letter twice (readers dedupe
 * on projection/topic/partition/offset), never zero times.
 *
 * @example
 * const publisher = kafkaDeadLetterPublisher(appender, codec, topicPrefix);
 * await publisher.publish([deadLetterOf('dispatcher.deliveries', 'holdfast.campaigns', r, reason)]);
 */
export function kafkaDeadLetterPublisher(
  appender: Appender,
  codec: Pick<EventCodec, 'encode'>,
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
          ...(d.requestId ? { headers: { [REQUEST_ID_HEADER]: d.requestId } } : {}),
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

/** `{ requestId }` when the record carries one (for a DeadLetter built elsewhere). */
function withRequestId(record: Pick<ConsumedRecord, 'headers'>): { requestId?: string } {
  const requestId = requestIdOfRecord(record);
  return requestId ? { requestId } : {};
}
