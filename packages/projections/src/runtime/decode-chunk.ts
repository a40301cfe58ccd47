import { UndecodableRecordError, type EventCodec, type AnyEvent } from '@holdfast/contracts';
import { deadLetterOf as kafkaDeadLetterOf, type ConsumedRecord } from '@holdfast/kafka';
import type { AnyProjection, ProjectedEvent } from '../projection.js';
import type { DeadLetter } from './dead-letters.js';

/** A chunk split into what the projection applies and what can never be applied. */
export interface DecodedChunk {
  readonly events: ProjectedEvent[];
  readonly dead: DeadLetter[];
}

/** A dead letter for `record`. */
export function deadLetterOf(projection: AnyProjection, record: ConsumedRecord, reason: string): DeadLetter {
  return kafkaDeadLetterOf(projection.name, projection.topic, record, reason);
}

/**
 * Decodes records through the registry codec (synchronously for schema ids already known, which is
 * every record our own services wrote). Bytes that are not a record of a known schema, empty values,
 * and record types this projection does not apply become dead letters here, before any SQL runs.
 * A registry that cannot be asked about an unseen schema id throws SchemaRegistryUnavailableError
 * (retriable): the runner retries the chunk once the registry is back; the record is never
 * dead-lettered for it.
 */
export async function decodeChunk(
  codec: EventCodec,
  projection: AnyProjection,
  records: readonly ConsumedRecord[],
): Promise<DecodedChunk> {
  const chunk = new ChunkDecoder(projection);
  for (const r of records) {
    if (!r.value) chunk.empty(r);
    // Waits only for a schema id this process has not seen yet (rare), never per record.
    else chunk.add(r, decodeKnown(codec, r.value) ?? (await decodeFetching(codec, r.value)));
  }
  return chunk.result();
}

/**
 * `decodeChunk` without waiting: undefined when a record needs a schema this process has not fetched
 * yet. Used to prepare the next chunk while the database works on the current one.
 */
export function decodeKnownChunk(
  codec: EventCodec,
  projection: AnyProjection,
  records: readonly ConsumedRecord[],
): DecodedChunk | undefined {
  const chunk = new ChunkDecoder(projection);
  for (const r of records) {
    if (!r.value) {
      chunk.empty(r);
      continue;
    }
    const decoded = decodeKnown(codec, r.value);
    if (decoded === undefined) return undefined;
    chunk.add(r, decoded);
  }
  return chunk.result();
}

/** The record decoded with a schema already known, its decode error, or undefined (unknown id). */
function decodeKnown(codec: EventCodec, value: Buffer): AnyEvent | UndecodableRecordError | undefined {
  try {
    return codec.decodeKnown(value);
  } catch (err) {
    if (!(err instanceof UndecodableRecordError)) throw err;
    return err;
  }
}

async function decodeFetching(codec: EventCodec, value: Buffer): Promise<AnyEvent | UndecodableRecordError> {
  try {
    return await codec.decode(value);
  } catch (err) {
    if (!(err instanceof UndecodableRecordError)) throw err;
    return err;
  }
}

class ChunkDecoder {
  private readonly events: ProjectedEvent[] = [];
  private readonly dead: DeadLetter[] = [];
  private readonly handles: Set<string>;

  constructor(private readonly projection: AnyProjection) {
    this.handles = new Set<string>(projection.handles);
  }

  empty(r: ConsumedRecord): void {
    this.dead.push(deadLetterOf(this.projection, r, 'empty record value'));
  }

  add(r: ConsumedRecord, decoded: AnyEvent | UndecodableRecordError): void {
    if (decoded instanceof UndecodableRecordError)
      this.dead.push(deadLetterOf(this.projection, r, `undecodable: ${decoded.message}`));
    else if (!this.handles.has(decoded.type))
      this.dead.push(
        deadLetterOf(
          this.projection,
          r,
          `unexpected record type ${decoded.type} for ${this.projection.name}`,
        ),
      );
    else
      this.events.push({
        type: decoded.type,
        value: decoded.value,
        partition: r.partition,
        offset: r.offset,
      } as ProjectedEvent);
  }

  result(): DecodedChunk {
    return { events: this.events, dead: this.dead };
  }
}
