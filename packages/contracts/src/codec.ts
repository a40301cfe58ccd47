import { COMPATIBILITY, SchemaRegistry, SchemaType } from '@kafkajs/confluent-schema-registry';
import avro from 'avsc';
import { loadEventSchemas } from './codegen/load-schemas.js';
import type { AnyEvent, EventName, EventTypes } from './generated/events.js';

/** Subject of a record: its full name (RecordNameStrategy), so one schema serves every topic and test prefix. */
export function subjectOf(name: EventName): string {
  return `holdfast.${name}`;
}

/** Size of the slabs encoded records are written into (a record larger than this gets its own). */
const SLAB_BYTES = 256 * 1024;

interface Writer {
  readonly id: number;
  readonly type: avro.Type;
  readonly header: Buffer;
}

/** Thrown for bytes that are not a record of a known schema (a poison record, never retriable). */
export class UndecodableRecordError extends Error {
  override readonly name = 'UndecodableRecordError';
  readonly isRetriable = false;
}

/**
 * Runs `register` again, a few times, while another process registers the same subject for the first
 * time: the client reads the subject's compatibility, registers, then sets BACKWARD, so services
 * starting together on a fresh registry (`npm start`) can read the registry's default in between
 * (a compatibility mismatch) or both set it (409, the rule already exists). Anything else, or a
 * conflict that outlasts the retries, is thrown.
 */
export async function whileSubjectSettles<T>(
  register: () => Promise<T>,
  attempts = 10,
  delayMs = 100,
): Promise<T> {
  for (let attempt = 1; ; attempt++) {
    try {
      return await register();
    } catch (err) {
      const e = err as { name?: string; status?: number } | null;
      const racing = e?.name === 'ConfluentSchemaRegistryCompatibilityError' || e?.status === 409;
      if (!racing || attempt >= attempts) throw err;
      await new Promise((r) => setTimeout(r, delayMs * attempt));
    }
  }
}

/**
 * The registry could not be asked about a schema id (down, restarting, answering 5xx): the record is
 * probably fine, so the work is retried later and the record is never dead-lettered for it.
 */
export class SchemaRegistryUnavailableError extends Error {
  override readonly name = 'SchemaRegistryUnavailableError';
  readonly isRetriable = true;
}

/**
 * Encodes and decodes events in the Confluent wire format (magic byte, 4-byte schema id, Avro body).
 * Schemas are registered with the registry at start-up (BACKWARD compatibility); records written
 * under an older schema id are read through an Avro resolver into the current type.
 *
 * @example
 * const codec = await EventCodec.connect('http://127.0.0.1:8081/apis/ccompat/v7');
 * const bytes = codec.encode('SyncRequested', { metadata, task_id, trigger: 'api' });
 * const event = await codec.decode(bytes); // { type: 'SyncRequested', value: {...} }
 */
export class EventCodec {
  private slab = Buffer.allocUnsafe(SLAB_BYTES);
  private slabPos = 0;
  private readonly readers = new Map<number, { name: EventName; read: (buf: Buffer) => unknown }>();

  private constructor(
    readonly registry: SchemaRegistry,
    private readonly writers: ReadonlyMap<EventName, Writer>,
    private readonly types: ReadonlyMap<EventName, avro.Type>,
  ) {
    for (const [name, w] of writers)
      this.readers.set(w.id, { name, read: (b): unknown => w.type.fromBuffer(b) as unknown });
  }

  /**
   * Registers every schema in `schemas/events` and returns a ready codec. `auth`: the registry's
   * basic-auth credentials, where it requires them (HOLDFAST_REGISTRY_USERNAME/_PASSWORD).
   */
  static async connect(
    registryUrl: string,
    { auth }: { auth?: { readonly username: string; readonly password: string } } = {},
  ): Promise<EventCodec> {
    const registry = new SchemaRegistry({
      host: registryUrl,
      retry: { retries: 5 },
      ...(auth && { auth: { username: auth.username, password: auth.password } }),
    });
    const writers = new Map<EventName, Writer>();
    const types = new Map<EventName, avro.Type>();
    for (const [name, schema] of loadEventSchemas()) {
      const eventName = name as EventName;
      const { id } = await whileSubjectSettles(() =>
        registry.register(
          { type: SchemaType.AVRO, schema: JSON.stringify(schema) },
          { subject: subjectOf(eventName), compatibility: COMPATIBILITY.BACKWARD },
        ),
      );
      const type = avro.Type.forSchema(schema as avro.Schema);
      const header = Buffer.alloc(5);
      header.writeUInt8(0, 0);
      header.writeInt32BE(id, 1);
      writers.set(eventName, { id, type, header });
      types.set(eventName, type);
    }
    return new EventCodec(registry, writers, types);
  }

  /** The registry id of the current schema of `name`. */
  schemaId(name: EventName): number {
    return this.writer(name).id;
  }

  private writer(name: EventName): Writer {
    const w = this.writers.get(name);
    if (!w) throw new Error(`no schema registered for ${name}`);
    return w;
  }

  /**
   * Encodes synchronously: the hot path of the gateway (thousands of records per request). Records
   * are written straight into a shared slab (header, then Avro body) and returned as views of it: one
   * allocation per ~256 KiB of records instead of two buffers and two copies per record
   * (`toBuffer` copies out of avsc's scratch, `Buffer.concat` copies again).
   */
  encode<K extends EventName>(name: K, value: EventTypes[K]): Buffer {
    const w = this.writer(name);
    for (;;) {
      const start = this.slabPos;
      const slab = this.slab;
      if (slab.length - start > 5) {
        w.header.copy(slab, start);
        const end = w.type.encode(value, slab, start + 5);
        if (end > 0) {
          this.slabPos = end;
          return slab.subarray(start, end);
        }
        // Too small: `end` is minus the missing bytes. A fresh slab is large enough for the record.
        this.slab = Buffer.allocUnsafe(Math.max(SLAB_BYTES, slab.length - start - end + 5));
      } else this.slab = Buffer.allocUnsafe(SLAB_BYTES);
      this.slabPos = 0;
    }
  }

  /** Decodes a record; fetches and caches the writer schema of ids this process has not seen. */
  async decode(buf: Buffer): Promise<AnyEvent> {
    return this.decodeKnown(buf) ?? this.decodeWith(buf, await this.resolve(this.idOf(buf)));
  }

  /** Synchronous decode for ids already known; `undefined` when the id must be fetched first. */
  decodeKnown(buf: Buffer): AnyEvent | undefined {
    const reader = this.readers.get(this.idOf(buf));
    return reader ? this.decodeWith(buf, reader) : undefined;
  }

  private idOf(buf: Buffer): number {
    if (buf.length < 5 || buf.readUInt8(0) !== 0)
      throw new UndecodableRecordError('not in the Confluent wire format');
    return buf.readInt32BE(1);
  }

  private decodeWith(buf: Buffer, reader: { name: EventName; read: (buf: Buffer) => unknown }): AnyEvent {
    try {
      return { type: reader.name, value: reader.read(buf.subarray(5)) } as AnyEvent;
    } catch (err) {
      throw new UndecodableRecordError(`cannot decode ${reader.name}: ${(err as Error).message}`);
    }
  }

  private async resolve(id: number): Promise<{ name: EventName; read: (buf: Buffer) => unknown }> {
    let writerType: avro.Type;
    try {
      writerType = (await this.registry.getSchema(id)) as unknown as avro.Type;
    } catch (err) {
      // Only a definite "not found" condemns the record; anything else (ECONNREFUSED, a timeout, a
      // 5xx) says nothing about it.
      if ((err as { status?: unknown }).status === 404)
        throw new UndecodableRecordError(`schema id ${id} is unknown to the registry`);
      throw new SchemaRegistryUnavailableError(`schema id ${id} could not be fetched from the registry`, {
        cause: err,
      });
    }
    const name = (writerType.name ?? '').replace(/^holdfast\./, '') as EventName;
    const current = this.types.get(name);
    if (!current)
      throw new UndecodableRecordError(
        `schema id ${id} (${writerType.name}) is not an event this build knows`,
      );
    const resolver = current.createResolver(writerType);
    const reader = { name, read: (b: Buffer): unknown => current.fromBuffer(b, resolver) as unknown };
    this.readers.set(id, reader);
    return reader;
  }
}
