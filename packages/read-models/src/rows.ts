// Typed rows of the read models, as `pg` returns them through `createPool` (uuid and text as
// strings, int8 and numeric as numbers, timestamptz and date as Dates, jsonb parsed). Each interface
// has a column list that must name exactly its keys (`satisfies`), and `rows.int.test.ts` holds the
// lists to the tables the DDL creates, so a column added to one and not the other fails a test.
import { rowColumns } from '@holdfast/postgres';

/** A row of `orders` (docs/read-models.md, "orders"). */
export interface OrderRow {
  readonly account_id: string;
  readonly order_id: string;
  readonly customer_id: string | null;
  readonly external_customer_id: string | null;
  readonly order_date: Date;
  readonly order_amount: number;
  readonly product_name: string;
  readonly email: string | null;
  readonly phone: string | null;
  readonly customer_name: string | null;
  readonly source: string | null;
  readonly order_channel: string | null;
  readonly currency: string;
  readonly shipping_city: string | null;
  readonly shipping_state: string | null;
  readonly shipping_zip: string | null;
  readonly refunded_amount: number;
  readonly discount_total: number | null;
  readonly discount_pct: number | null;
  readonly discount_codes: string[] | null;
  readonly cancelled_at: Date | null;
  /** Generated: order_amount − refunded_amount, 0 once cancelled. */
  readonly net_amount: number;
  readonly first_seen_at: Date;
  readonly updated_at: Date;
  readonly acquisition_channel: string | null;
  readonly reporting_currency: string;
  readonly fx_rate: number;
  readonly fx_minor_units: number;
  readonly fx_rate_date: Date | null;
  readonly fx_status: 'same' | 'converted' | 'unknown_currency' | 'no_rate' | 'pending';
  /** Generated: the amounts in the account's reporting currency. */
  readonly order_amount_reporting: number;
  readonly refunded_amount_reporting: number;
  readonly net_amount_reporting: number;
}

/** A row of `customers` (docs/read-models.md, "customers"). */
export interface CustomerRow {
  readonly account_id: string;
  readonly customer_id: string;
  readonly external_id: string | null;
  readonly email: string | null;
  readonly phone: string | null;
  readonly name: string | null;
  readonly address_street: string | null;
  readonly address_city: string | null;
  readonly address_state: string | null;
  readonly address_zip: string | null;
  readonly address_country: string | null;
  readonly consent_marketing_email: boolean;
  readonly consent_sms: boolean;
  readonly consent_suppressed: boolean;
  readonly consent_bounced: boolean;
  readonly source_label: string;
  readonly subscription_status: 'active' | 'paused' | 'cancelled' | null;
  readonly subscription_started_at: Date | null;
  readonly created_at: Date;
  readonly updated_at: Date;
  /** The service recorded an unsubscribe: `consent_suppressed` holds until an explicit re-consent. */
  readonly consent_locked_email: boolean;
  /** The service recorded an SMS STOP: `consent_sms` stays false until a START or an explicit re-consent. */
  readonly consent_locked_sms: boolean;
  /** Blind indexes of the email and phone (docs/privacy.md): what identity resolution matches on. */
  readonly email_index: string | null;
  readonly phone_index: string | null;
}

/** A row of `customer_subjects`: a data subject whose key encrypted a record of the customer. */
export interface CustomerSubjectRow {
  readonly account_id: string;
  readonly customer_id: string;
  readonly subject_id: string;
}

/** A row of `customer_events`: the first event of each dedup key posted to POST /webhooks/custom-api. */
export interface CustomerEventRow {
  readonly account_id: string;
  readonly dedup_key: string;
  readonly event_id: string;
  readonly customer_id: string;
  readonly link_method: 'provider_id' | 'email' | 'phone' | 'fuzzy' | 'created';
  readonly is_new: boolean;
  readonly event_type: string;
  readonly received_at: Date;
  readonly content_key: string | null;
}

/** A row of `zero_party_submissions`: quiz and preference answers, linked to a customer. */
export interface ZeroPartySubmissionRow {
  readonly account_id: string;
  readonly dedup_key: string;
  readonly event_id: string;
  readonly customer_id: string;
  readonly email: string | null;
  readonly external_customer_id: string | null;
  readonly interests: string[];
  readonly attributes: unknown;
  readonly source_label: string | null;
  readonly quiz_version: string | null;
  readonly completed_at: Date | null;
  readonly received_at: Date;
}

/** A row of `account_settings`: an account's settings (PATCH /ingest/account). */
export interface AccountSettingsRow {
  readonly account_id: string;
  readonly store_timezone: string;
  readonly updated_at: Date;
}

/** A row of `ingest_batches`: one ingest call (GET /ingest/batches). */
export interface IngestBatchRow {
  readonly batch_id: string;
  readonly account_id: string;
  readonly endpoint: string;
  readonly dry_run: boolean;
  readonly status: 'accepted' | 'rejected' | 'error' | 'queued';
  readonly http_status: number;
  readonly received: number;
  readonly accepted: number;
  readonly dropped: number;
  readonly error_codes: string[];
  readonly warning_codes: string[];
  readonly errors: unknown;
  readonly duration_ms: number;
  readonly sync_task_id: string | null;
  readonly key_id: string | null;
  readonly request_id: string | null;
  readonly received_at: Date;
}

/** A row of `pixel_events`: one browser event of the pixel. */
export interface PixelEventRow {
  readonly account_id: string;
  readonly event_id: string;
  readonly pixel_key_id: string;
  readonly origin: string;
  readonly event_type: string;
  readonly occurred_at: Date;
  readonly anonymous_id: string;
  readonly session_id: string | null;
  readonly url_path: string | null;
  readonly page_title: string | null;
  readonly referrer_host: string | null;
  readonly product_external_id: string | null;
  readonly collection: string | null;
  readonly search: string | null;
  readonly price_cents: number | null;
  readonly dwell_ms: number | null;
  readonly consent_state: string | null;
  readonly raw_props: unknown;
  readonly received_at: Date;
}

/** A row of `campaign_sends`: one message sent. */
export interface CampaignSendRow {
  readonly tracking_id: string;
  readonly account_id: string;
  readonly customer_id: string;
  readonly campaign_type: string;
  readonly channel: string;
  readonly provider: string;
  readonly url: string;
  readonly sent_at: Date;
  readonly task_id: string | null;
  readonly event_id: string;
  readonly received_at: Date;
}

/** A row of `dead_letters`: a record a projection could never apply (the table; `DeadLetterRow` is its operator view). */
export interface DeadLetterTableRow {
  readonly projection: string;
  readonly topic: string;
  readonly partition: number;
  readonly record_offset: number;
  readonly id: string;
  readonly account_id: string | null;
  readonly reason: string;
  readonly record_key: Buffer | null;
  readonly record_value: Buffer | null;
  readonly record_timestamp: Date | null;
  readonly status: 'dead' | 'redriven';
  readonly redriven_at: Date | null;
  readonly request_id: string | null;
}

/** Every column of `orders`, in table order. */
export const ORDER_ROW_COLUMNS = rowColumns<OrderRow>()({
  account_id: true,
  order_id: true,
  customer_id: true,
  external_customer_id: true,
  order_date: true,
  order_amount: true,
  product_name: true,
  email: true,
  phone: true,
  customer_name: true,
  source: true,
  order_channel: true,
  currency: true,
  shipping_city: true,
  shipping_state: true,
  shipping_zip: true,
  refunded_amount: true,
  discount_total: true,
  discount_pct: true,
  discount_codes: true,
  cancelled_at: true,
  net_amount: true,
  first_seen_at: true,
  updated_at: true,
  acquisition_channel: true,
  reporting_currency: true,
  fx_rate: true,
  fx_minor_units: true,
  fx_rate_date: true,
  fx_status: true,
  order_amount_reporting: true,
  refunded_amount_reporting: true,
  net_amount_reporting: true,
});

/** Every column of `customers`, in table order. */
export const CUSTOMER_ROW_COLUMNS = rowColumns<CustomerRow>()({
  account_id: true,
  customer_id: true,
  external_id: true,
  email: true,
  phone: true,
  name: true,
  address_street: true,
  address_city: true,
  address_state: true,
  address_zip: true,
  address_country: true,
  consent_marketing_email: true,
  consent_sms: true,
  consent_suppressed: true,
  consent_bounced: true,
  source_label: true,
  subscription_status: true,
  subscription_started_at: true,
  created_at: true,
  updated_at: true,
  consent_locked_email: true,
  consent_locked_sms: true,
  email_index: true,
  phone_index: true,
});

/** Every column of `customer_subjects`, in table order. */
export const CUSTOMER_SUBJECT_ROW_COLUMNS = rowColumns<CustomerSubjectRow>()({
  account_id: true,
  customer_id: true,
  subject_id: true,
});

/** Every column of `customer_events`, in table order. */
export const CUSTOMER_EVENT_ROW_COLUMNS = rowColumns<CustomerEventRow>()({
  account_id: true,
  dedup_key: true,
  event_id: true,
  customer_id: true,
  link_method: true,
  is_new: true,
  event_type: true,
  received_at: true,
  content_key: true,
});

/** Every column of `zero_party_submissions`, in table order. */
export const ZERO_PARTY_SUBMISSION_ROW_COLUMNS = rowColumns<ZeroPartySubmissionRow>()({
  account_id: true,
  dedup_key: true,
  event_id: true,
  customer_id: true,
  email: true,
  external_customer_id: true,
  interests: true,
  attributes: true,
  source_label: true,
  quiz_version: true,
  completed_at: true,
  received_at: true,
});

/** Every column of `account_settings`, in table order. */
export const ACCOUNT_SETTINGS_ROW_COLUMNS = rowColumns<AccountSettingsRow>()({
  account_id: true,
  store_timezone: true,
  updated_at: true,
});

/** Every column of `ingest_batches`, in table order. */
export const INGEST_BATCH_ROW_COLUMNS = rowColumns<IngestBatchRow>()({
  batch_id: true,
  account_id: true,
  endpoint: true,
  dry_run: true,
  status: true,
  http_status: true,
  received: true,
  accepted: true,
  dropped: true,
  error_codes: true,
  warning_codes: true,
  errors: true,
  duration_ms: true,
  sync_task_id: true,
  key_id: true,
  request_id: true,
  received_at: true,
});

/** Every column of `pixel_events`, in table order. */
export const PIXEL_EVENT_ROW_COLUMNS = rowColumns<PixelEventRow>()({
  account_id: true,
  event_id: true,
  pixel_key_id: true,
  origin: true,
  event_type: true,
  occurred_at: true,
  anonymous_id: true,
  session_id: true,
  url_path: true,
  page_title: true,
  referrer_host: true,
  product_external_id: true,
  collection: true,
  search: true,
  price_cents: true,
  dwell_ms: true,
  consent_state: true,
  raw_props: true,
  received_at: true,
});

/** Every column of `campaign_sends`, in table order. */
export const CAMPAIGN_SEND_ROW_COLUMNS = rowColumns<CampaignSendRow>()({
  tracking_id: true,
  account_id: true,
  customer_id: true,
  campaign_type: true,
  channel: true,
  provider: true,
  url: true,
  sent_at: true,
  task_id: true,
  event_id: true,
  received_at: true,
});

/** Every column of `dead_letters`, in table order. */
export const DEAD_LETTER_TABLE_ROW_COLUMNS = rowColumns<DeadLetterTableRow>()({
  projection: true,
  topic: true,
  partition: true,
  record_offset: true,
  id: true,
  account_id: true,
  reason: true,
  record_key: true,
  record_value: true,
  record_timestamp: true,
  status: true,
  redriven_at: true,
  request_id: true,
});
