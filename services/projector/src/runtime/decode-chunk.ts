import { UndecodableRecordError, type EventCodec, type AnyEvent } from '@holdfast/contracts';
import type { ConsumedRecord } from '@holdfast/kafka';
import type { AnyProjection, ProjectedEvent } from '../projection.js';
import type { DeadLetter } from './dead-letters.js';

/** A chunk split into what the projection applies and what can never be applied. */
export interface DecodedChunk {
  readonly events: ProjectedEvent[];
  readonly dead: DeadLetter[];
}

/** A dead letter for `record`. */
export function deadLetterOf(projection: AnyProjection, record: ConsumedRecord, reason: string): DeadLetter {
  return {
    projection: projection.name,
    topic: projection.topic,
    partition: record.partition,
    offset: record.offset,
    key: record.key,
    value: record.value,
    timestamp: record.timestamp,
    reason,
  };
}

/**
 * Decodes records through the registry codec (synchronously for schema ids already known, which is
 * every record our own services wrote). Bytes that are not a record of a known schema, empty values,
 * and record types this projection does not apply become dead letters here, before any SQL runs.
 * Registry outages surface as UndecodableRecordError too, but only for ids this build never saw.
 */
export async function decodeChunk(
  codec: EventCodec,
  projection: AnyProjection,
  records: readonly ConsumedRecord[],
): Promise<DecodedChunk> {
  const events: ProjectedEvent[] = [];
  const dead: DeadLetter[] = [];
  const handles = new Set<string>(projection.handles);
  for (const r of records) {
    if (!r.value) {
      dead.push(deadLetterOf(projection, r, 'empty record value'));
      continue;
    }
    let decoded: AnyEvent;
    try {
      decoded = codec.decodeKnown(r.value) ?? (await codec.decode(r.value));
    } catch (err) {
      if (!(err instanceof UndecodableRecordError)) throw err;
      dead.push(deadLetterOf(projection, r, `undecodable: ${err.message}`));
      continue;
    }
    if (!handles.has(decoded.type)) {
      dead.push(deadLetterOf(projection, r, `unexpected record type ${decoded.type} for ${projection.name}`));
      continue;
    }
    events.push({ ...decoded, partition: r.partition, offset: r.offset });
  }
  return { events, dead };
}
