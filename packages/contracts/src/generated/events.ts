// Generated from schemas/events/*.avsc by `npm run gen:types`. Do not edit.

/** PATCH /ingest/account. */
export interface AccountSettingsChanged {
  readonly metadata: EventMetadata;
  readonly store_timezone: string;
}

/** Carried by every record: who, which batch, which request, which key, when. */
export interface EventMetadata {
  readonly account_id: string;
  readonly event_id: string;
  readonly batch_id: null | string;
  readonly request_id: null | string;
  readonly key_id: null | string;
  /** ISO 8601 UTC */
  readonly received_at: string;
}

/** One message sent to one customer through a provider. */
export interface CampaignSent {
  readonly metadata: EventMetadata;
  readonly tracking_id: string;
  readonly customer_id: string;
  readonly campaign_type: string;
  readonly channel: string;
  readonly provider: string;
  readonly url: string;
  readonly sent_at: string;
  readonly task_id: null | string;
}

/** An identity or consent event posted to POST /webhooks/custom-api. */
export interface CustomerEventReceived {
  readonly metadata: EventMetadata;
  readonly dedup_key: string;
  readonly event: InboundCustomerEvent;
  /** null in records written before encryption (their personal fields are in clear). */
  readonly personal: null | PersonalData;
}

export interface InboundCustomerEvent {
  readonly external_id: null | string;
  readonly email: null | string;
  readonly phone: null | string;
  readonly name: null | string;
  readonly address: null | EventAddress;
  readonly consent: null | EventConsent;
  readonly event_type: string;
  readonly source_label: null | string;
}

export interface EventAddress {
  readonly street: null | string;
  readonly city: null | string;
  readonly state: null | string;
  readonly zip: null | string;
  readonly country: string;
}

/** null = key omitted: keep the current value. */
export interface EventConsent {
  readonly marketing_email: null | boolean;
  readonly sms: null | boolean;
  readonly suppressed: null | boolean;
  readonly bounced: null | boolean;
}

/** The record's personal fields, encrypted (docs/privacy.md): AES-256-GCM under the data subject's key, aad account_id/subject_id/event_id. The clear personal fields of the record are null when this is set. */
export interface PersonalData {
  /** x:/e:/p:<blind index> or r:<event_id> */
  readonly subject_id: string;
  /** version 1 | iv 12 | tag 16 | ciphertext of the JSON fields */
  readonly ciphertext: Buffer;
  readonly external_id_index: null | string;
  readonly email_index: null | string;
  readonly phone_index: null | string;
}

/** One customer row of POST /ingest/customers, normalised. */
export interface CustomerUpserted {
  readonly metadata: EventMetadata;
  readonly customer: CustomerRow;
  /** null in records written before encryption (their personal fields are in clear). */
  readonly personal: null | PersonalData;
}

export interface CustomerRow {
  readonly external_id: null | string;
  readonly email: null | string;
  readonly phone: null | string;
  readonly name: null | string;
  readonly address: null | Address;
  readonly consent: null | Consent;
  readonly source_label: string;
  readonly subscription_status: null | SubscriptionStatus;
  readonly subscription_started_at: null | string;
}

export interface Address {
  readonly street: null | string;
  readonly city: null | string;
  readonly state: null | string;
  readonly zip: null | string;
  readonly country: string;
}

/** null = key omitted: keep the current value. */
export interface Consent {
  readonly marketing_email: null | boolean;
  readonly sms: null | boolean;
  readonly suppressed: null | boolean;
  readonly bounced: null | boolean;
}

export type SubscriptionStatus = 'active' | 'paused' | 'cancelled';

/** A record a projection could never apply, with the reason. */
export interface DeadLettered {
  readonly projection: string;
  readonly topic: string;
  readonly partition: number;
  readonly offset: string;
  readonly key: null | Buffer;
  readonly value: null | Buffer;
  readonly reason: string;
  readonly failed_at: string;
}

/** The record of one ingest call, dry runs included. Carries client ids only, never names, emails or phones. */
export interface IngestBatchRecorded {
  readonly metadata: EventMetadata;
  readonly endpoint: string;
  readonly dry_run: boolean;
  readonly status: BatchStatus;
  readonly http_status: number;
  readonly received: number;
  readonly accepted: number;
  readonly dropped: number;
  readonly error_codes: string[];
  readonly warning_codes: string[];
  /** Row errors: index, client order or customer id, codes. */
  readonly errors_json: null | string;
  readonly duration_ms: number;
  readonly sync_task_id: null | string;
}

export type BatchStatus = 'accepted' | 'rejected' | 'error' | 'queued';

/** One accepted order row of an ingest batch, normalised (UTC timestamps, E.164 phone, upper-case currency). */
export interface OrderUpserted {
  readonly metadata: EventMetadata;
  readonly order: OrderRow;
  /** null in records written before encryption (their personal fields are in clear). */
  readonly personal: null | PersonalData;
}

export interface OrderRow {
  readonly order_id: string;
  readonly customer_id: null | string;
  readonly order_date: string;
  readonly order_amount: number;
  readonly product_name: string;
  readonly email: null | string;
  readonly phone: null | string;
  readonly customer_name: null | string;
  readonly source: null | string;
  readonly order_channel: null | string;
  readonly currency: string;
  readonly shipping_city: null | string;
  readonly shipping_state: null | string;
  readonly shipping_zip: null | string;
  readonly refunded_amount: null | number;
  readonly discount_total: null | number;
  readonly discount_pct: null | number;
  readonly discount_codes: null | string[];
  readonly cancelled_at: null | string;
}

/** A browser event accepted by POST /pixel/collect. */
export interface PixelEventCollected {
  readonly metadata: EventMetadata;
  readonly pixel_key_id: string;
  readonly origin: string;
  readonly event_id: string;
  readonly event_type: PixelEventType;
  readonly occurred_at: string;
  readonly anonymous_id: string;
  readonly session_id: null | string;
  readonly url_path: null | string;
  readonly page_title: null | string;
  readonly referrer_host: null | string;
  readonly product_external_id: null | string;
  readonly collection: null | string;
  readonly search: null | string;
  readonly price_cents: null | number;
  readonly dwell_ms: null | number;
  readonly consent_state: null | string;
  /** The free-form raw_props object as JSON. Null when `personal` is set (it is sealed there). */
  readonly raw_props_json: null | string;
  /** null in events written before encryption, and in events with no personal value (nothing to hide). */
  readonly personal: null | PixelPersonalData;
}

export type PixelEventType = 'page_view' | 'product_view' | 'search' | 'add_to_cart' | 'checkout_started';

/** The event's personal fields (raw_props_json, search, page_title), encrypted (docs/privacy.md): AES-256-GCM under the key of the anonymous id's subject, aad account_id/subject_id/event_id (metadata.event_id). Those clear fields are null when this is set. */
export interface PixelPersonalData {
  /** a:<blind index of anonymous_id> */
  readonly subject_id: string;
  /** version 1 | iv 12 | tag 16 | ciphertext of the JSON fields */
  readonly ciphertext: Buffer;
}

/** A command: recompute this account's analytics. */
export interface SyncRequested {
  readonly metadata: EventMetadata;
  readonly task_id: string;
  readonly trigger: SyncTrigger;
  /** What the recompute must see: it scores once the read models hold every record below these positions (the log's high watermarks when the sync was requested). null: no barrier (commands written before it existed). */
  readonly barrier: null | LogPosition[];
}

export type SyncTrigger = 'api' | 'nightly' | 'cli';

/** A position in one partition of the event log: every record at an offset below `offset`. */
export interface LogPosition {
  /** Logical topic name, e.g. holdfast.commerce */
  readonly topic: string;
  readonly partition: number;
  /** The next offset (exclusive bound) */
  readonly offset: number;
}

/** A quiz or preference submission posted to POST /webhooks/zero-party. */
export interface ZeroPartySubmitted {
  readonly metadata: EventMetadata;
  readonly dedup_key: string;
  readonly email: null | string;
  readonly external_customer_id: null | string;
  readonly interests: string[];
  /** The free-form attributes object as JSON. */
  readonly attributes_json: null | string;
  readonly source_label: null | string;
  readonly quiz_version: null | string;
  readonly completed_at: null | string;
  /** null in records written before encryption (their personal fields are in clear). */
  readonly personal: null | PersonalData;
}

/** Every record type, by name: the discriminant of `AnyEvent`. */
export interface EventTypes {
  AccountSettingsChanged: AccountSettingsChanged;
  CampaignSent: CampaignSent;
  CustomerEventReceived: CustomerEventReceived;
  CustomerUpserted: CustomerUpserted;
  DeadLettered: DeadLettered;
  IngestBatchRecorded: IngestBatchRecorded;
  OrderUpserted: OrderUpserted;
  PixelEventCollected: PixelEventCollected;
  SyncRequested: SyncRequested;
  ZeroPartySubmitted: ZeroPartySubmitted;
}

export type EventName = keyof EventTypes;

/** A decoded record: `{ type, value }`, narrowed by `type`. */
export type AnyEvent = { [K in EventName]: { readonly type: K; readonly value: EventTypes[K] } }[EventName];

/** The records each topic carries (schemas/topics.json). */
export const TOPIC_RECORDS = {
  'holdfast.commerce': ['OrderUpserted', 'CustomerUpserted', 'CustomerEventReceived', 'ZeroPartySubmitted'],
  'holdfast.pixel-events': ['PixelEventCollected'],
  'holdfast.account-settings': ['AccountSettingsChanged'],
  'holdfast.ingest-batches': ['IngestBatchRecorded'],
  'holdfast.sync-commands': ['SyncRequested'],
  'holdfast.campaigns': ['CampaignSent'],
  'holdfast.dlq': ['DeadLettered'],
} as const satisfies Record<string, readonly EventName[]>;

export type TopicName = keyof typeof TOPIC_RECORDS;

/** The events a topic carries. */
export type EventOf<T extends TopicName> = Extract<AnyEvent, { type: (typeof TOPIC_RECORDS)[T][number] }>;
