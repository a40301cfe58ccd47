import { randomUUID } from 'node:crypto';
import type { EventCodec, EventMetadata, EventTypes, TOPIC_RECORDS, TopicName } from '@holdfast/contracts';
import { topicName, type OutgoingRecord } from '@holdfast/kafka';
import {
  sealPersonal,
  sealPixelPersonal,
  type PersonalEvent,
  type PixelEvent,
  type PersonalEventName,
  type SubjectKeyCache,
} from '@holdfast/privacy';

/** The part of the codec the gateway needs (tests may pass a fake). */
export type Encoder = Pick<EventCodec, 'encode'>;

/** What every record of one request shares (DESIGN "The event log": who, which batch, request, key, when). */
export interface RequestMeta {
  readonly accountId: string;
  readonly batchId: string;
  /** X-Request-Id when the client sent one. */
  readonly requestId: string | null;
  /** Null for the legacy tile token. */
  readonly keyId: string | null;
  readonly receivedAt: Date;
}

/**
 * Builds encoded records for the appender: metadata, registry wire format, physical topic name under
 * the configured prefix, and the account id as key (an account's history stays on one partition).
 */
export class EventFactory {
  constructor(
    private readonly codec: Encoder,
    private readonly topicPrefix: string,
    /** The subject keys the personal fields of commerce and pixel records are encrypted with (docs/privacy.md). */
    private readonly keys: SubjectKeyCache,
    /** HOLDFAST_UNSAFE_UNSEALED (test mode only): personal fields left in clear, for the benchmarks. */
    private readonly unsealed = false,
  ) {}

  metadata(meta: RequestMeta): EventMetadata {
    return {
      account_id: meta.accountId,
      event_id: randomUUID(),
      batch_id: meta.batchId,
      request_id: meta.requestId,
      key_id: meta.keyId,
      received_at: meta.receivedAt.toISOString(),
    };
  }

  /** The metadata of a webhook call: it is not an ingest batch, so no batch record refers to it. */
  webhookMetadata(meta: Omit<RequestMeta, 'batchId'>): EventMetadata {
    return { ...this.metadata({ ...meta, batchId: '' }), batch_id: null };
  }

  /** One record of `name` on `topic`; the type ties each event to the topic that carries it. */
  record<T extends TopicName, K extends (typeof TOPIC_RECORDS)[T][number] & keyof EventTypes>(
    topic: T,
    name: K,
    value: EventTypes[K] & { readonly metadata: EventMetadata },
  ): OutgoingRecord {
    return {
      topic: topicName(this.topicPrefix, topic),
      key: value.metadata.account_id,
      value: this.codec.encode(name, value),
    };
  }

  /**
   * The holdfast.commerce records of one account's request with their personal fields encrypted
   * (`sealPersonal`: one key round trip for all the request's subjects, cache misses only). Only
   * called for records that are appended: a dry run creates no key.
   */
  async commerceRecords<K extends PersonalEventName>(
    accountId: string,
    name: K,
    values: readonly (EventTypes[K] & { readonly metadata: EventMetadata })[],
  ): Promise<OutgoingRecord[]> {
    if (!values.length) return [];
    if (this.unsealed) return values.map((value) => this.record('holdfast.commerce', name, value));
    await this.keys.refreshIfDue();
    // The tag of every value is `name`: a PersonalEvent each (TS cannot narrow K's union here).
    const events = values.map((value) => ({ type: name, value }) as unknown as PersonalEvent);
    const sealed = await sealPersonal(this.keys, accountId, events);
    return sealed.map((value) =>
      this.record('holdfast.commerce', name, value as EventTypes[K] & { readonly metadata: EventMetadata }),
    );
  }

  /**
   * The holdfast.pixel-events records of one account's collector request with their personal fields
   * (raw_props, search, page title) encrypted under each browser's key (`sealPixelPersonal`: one key
   * round trip for the request's browsers, cache misses only).
   */
  async pixelRecords(accountId: string, values: readonly PixelEvent[]): Promise<OutgoingRecord[]> {
    if (!values.length) return [];
    if (this.unsealed)
      return values.map((value) => this.record('holdfast.pixel-events', 'PixelEventCollected', value));
    await this.keys.refreshIfDue();
    const sealed = await sealPixelPersonal(this.keys, accountId, values);
    return sealed.map((value) => this.record('holdfast.pixel-events', 'PixelEventCollected', value));
  }
}
