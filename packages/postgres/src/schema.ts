import type { ColumnType, Generated } from 'kysely';

type Timestamp = ColumnType<Date, Date | string, Date | string>;

/** control.accounts */
export interface AccountsTable {
  id: string;
  name: string;
  storefront_domain: string | null;
  is_demo: Generated<boolean>;
  is_sandbox: Generated<boolean>;
  created_at: Generated<Timestamp>;
  /** Whether the account's ingest keys may also call the /v1/ read routes (off by default). */
  read_with_ingest_key: Generated<boolean>;
}

/** `read_live` (rk_live_): reads the /v1/ read routes, never writes. */
export type ApiKeyKind = 'ingest_live' | 'ingest_test' | 'outbound' | 'read_live';

/** control.api_keys */
export interface ApiKeysTable {
  id: string;
  account_id: string;
  kind: ApiKeyKind;
  prefix: string;
  key_hash: Buffer;
  created_at: Generated<Timestamp>;
  last_used_at: Timestamp | null;
  revoked_at: Timestamp | null;
  expires_at: Timestamp | null;
}

export type TileName = 'custom_integration' | 'zero_party';

/** control.tiles */
export interface TilesTable {
  account_id: string;
  tile: TileName;
  token_hash: Buffer;
  token_prefix: string;
  connected_at: Generated<Timestamp>;
  disconnected_at: Timestamp | null;
  first_call_at: Timestamp | null;
}

/** control.providers */
export interface ProvidersTable {
  account_id: string;
  provider: string;
  channel: 'email' | 'sms';
  endpoint_url: string;
  connected_at: Generated<Timestamp>;
  /** How the provider is reached: `smtp`, `twilio` (its Messages API shape), or the generic `json` POST. */
  kind: Generated<ProviderKind>;
  /** Non-secret settings of the kind (SmtpSettings, TwilioSettings; `{}` for json). */
  settings: Generated<unknown>;
}

export type ProviderKind = 'json' | 'smtp' | 'twilio';

/** control.provider_secrets: the provider's password or auth token, sealed (see secrets-keyring.ts). */
export interface ProviderSecretsTable {
  account_id: string;
  provider: string;
  key_id: string;
  wrapped_key: Buffer;
  ciphertext: Buffer;
  updated_at: ColumnType<Date, Date | string | undefined, Date | string>;
}

/**
 * control.provider_inbound_secrets: an SMS provider's auth token once more, sealed under
 * HOLDFAST_INBOUND_KEYS (the only provider secret the public gateway may open).
 */
export type ProviderInboundSecretsTable = ProviderSecretsTable;

/** control.pixel_keys */
export interface PixelKeysTable {
  id: string;
  account_id: string;
  prefix: string;
  key_hash: Buffer;
  created_at: Generated<Timestamp>;
  revoked_at: Timestamp | null;
}

/** control.pixel_origins */
export interface PixelOriginsTable {
  pixel_key_id: string;
  origin: string;
}

/** control.webhook_subscriptions */
export interface WebhookSubscriptionsTable {
  id: string;
  account_id: string;
  url: string;
  /** Legacy plain text; null once sealed into control.webhook_secrets. */
  secret: string | null;
  /** Set by the database on insert (a Generated<Timestamp> would select as the column type, not Date). */
  created_at: ColumnType<Date, Date | string | undefined, Date | string>;
  disabled_at: Timestamp | null;
  /** The outbound event types it receives (default `{campaign.sent}`). */
  event_types: Generated<string[]>;
}

/** control.outbound_events: one row per occurrence of a planned outbound event (outbound-events.ts). */
export interface OutboundEventsTable {
  event_id: string;
  account_id: string;
  event_type: string;
  subject: string;
  data: unknown;
  occurred_at: Timestamp;
  created_at: ColumnType<Date, Date | string | undefined, Date | string>;
  fanned_out_at: Timestamp | null;
}

/** control.webhook_secrets: sealed whsec_ signing secrets, several during a rotation's grace window */
export interface WebhookSecretsTable {
  id: string;
  seq: Generated<string>;
  subscription_id: string;
  key_id: string;
  wrapped_key: Buffer;
  ciphertext: Buffer;
  prefix: string;
  created_at: Generated<Timestamp>;
  expires_at: Timestamp | null;
}

/** control.rate_counters */
export interface RateCountersTable {
  bucket: string;
  window_start: Timestamp;
  count: number;
}

export type SyncStatus = 'queued' | 'running' | 'done' | 'failed' | 'skipped';

/** control.sync_tasks */
export interface SyncTasksTable {
  id: string;
  account_id: string;
  trigger: string;
  status: SyncStatus;
  queued_at: Timestamp;
  started_at: Timestamp | null;
  finished_at: Timestamp | null;
  orders_added: number | null;
  customers_added: number | null;
  duration_ms: number | null;
  reason: string | null;
}

/** control.sync_outbox: a sync task's encoded SyncRequested command until a relay appends it. */
/** control.recovery_codes: a console user's one-time recovery codes, as SHA-256 digests. */
export interface RecoveryCodesTable {
  user_id: string;
  code_hash: Buffer;
  created_at: DefaultedTimestamp;
  used_at: Timestamp | null;
}

/** control.settings_outbox: a store setting changed in the console, waiting for the gateway's relay. */
export interface SettingsOutboxTable {
  /** Also the AccountSettingsChanged event's id (a second append is the same event). */
  id: string;
  account_id: string;
  store_timezone: string;
  /** When the change was made: the event's received_at. */
  requested_at: Timestamp;
  created_at: Generated<Timestamp>;
  attempts: Generated<number>;
  last_error: string | null;
}

export interface SyncOutboxTable {
  task_id: string;
  /** The record's key: commands queue behind the account's ingest. */
  account_id: string;
  /** The encoded SyncRequested value (Confluent wire format). */
  command: Buffer;
  created_at: Generated<Timestamp>;
  /** Failed relay appends so far, and the last one's error (never a row's content). */
  attempts: Generated<number>;
  last_error: string | null;
}

/** control.analyst_grants: the accounts an analyst login may read (row-level security keys on it). */
export interface AnalystGrantsTable {
  /** The login role's name, as `session_user` reports it. */
  login: string;
  account_id: string;
  granted_at: Generated<Timestamp>;
  /** The role that granted it (`session_user` of the granting session). */
  granted_by: Generated<string>;
}

export type DeliveryStatus = 'pending' | 'delivered' | 'failed' | 'cancelled';

/** dispatcher.deliveries: the dispatcher writes them; the CLI lists and redelivers them. */
export interface DeliveriesTable {
  delivery_id: string;
  account_id: string;
  subscription_id: string;
  event: string;
  /** The tracking id of the CampaignSent record this delivery announces. */
  source_id: string;
  body: string;
  status: DeliveryStatus;
  attempts: Generated<number>;
  next_attempt_at: Timestamp | null;
  lease_until: Timestamp | null;
  created_at: Timestamp;
  delivered_at: Timestamp | null;
  last_status_code: number | null;
  last_error: string | null;
}

/** dispatcher.delivery_attempts: the audit trail of every attempt. */
export interface DeliveryAttemptsTable {
  delivery_id: string;
  attempt: number;
  attempted_at: Timestamp;
  succeeded: boolean;
  status_code: number | null;
  error: string | null;
  duration_ms: number;
}

/**
 * dispatcher.subscription_quarantine: subscriptions the dispatcher set aside because their deliveries
 * cannot be sent for a reason of their own (an unreadable signing secret); the CLI lifts it.
 */
export interface SubscriptionQuarantineTable {
  subscription_id: string;
  account_id: string;
  reason: string;
  since: Timestamp;
}

/** `<schema>.projection_checkpoints`, one per consuming schema (read models, dispatcher, recompute). */
export interface ProjectionCheckpointsTable {
  projection: string;
  topic: string;
  partition: number;
  last_offset: number;
  updated_at: Generated<Timestamp>;
}

/** The checkpoint table, unqualified: queries name its schema with `withSchema`. */
export interface CheckpointDatabase {
  projection_checkpoints: ProjectionCheckpointsTable;
}

/**
 * The tables kysely knows about. Read models (schema `read_models`) and analytics outputs are added
 * by the packages that own them, through declaration merging or their own interfaces.
 */
/** A timestamp with a default that an insert may also set. */
type DefaultedTimestamp = ColumnType<Date, Date | string | undefined, Date | string>;

/** A role a user holds in one account (the console's permission matrix reads it). */
export type AccountRole = 'owner' | 'admin' | 'analyst' | 'viewer';

/** control.users: a person who signs in to the console. */
export interface UsersTable {
  id: string;
  email: string;
  password_hash: string | null;
  /** In clear: only rows enrolled before the secrets were sealed, until the console's start seals them. */
  totp_secret: string | null;
  /** The sealed TOTP secret (ConsoleKeyring): the key id, the wrapped data key, the ciphertext. */
  totp_key_id: string | null;
  totp_wrapped_key: Buffer | null;
  totp_ciphertext: Buffer | null;
  totp_last_step: string | null;
  is_operator: Generated<boolean>;
  failed_sign_ins: Generated<number>;
  locked_until: Timestamp | null;
  created_at: DefaultedTimestamp;
  disabled_at: Timestamp | null;
}

/** control.memberships: a user's role in one account. */
export interface MembershipsTable {
  user_id: string;
  account_id: string;
  role: AccountRole;
  created_at: DefaultedTimestamp;
}

/** control.invites: a one-time link that sets a user's password and second factor. */
export interface InvitesTable {
  token_hash: Buffer;
  user_id: string;
  account_id: string | null;
  created_at: DefaultedTimestamp;
  expires_at: Timestamp;
  used_at: Timestamp | null;
}

/** control.console_sessions: a signed-in browser (the cookie's value is never stored). */
export interface ConsoleSessionsTable {
  id_hash: Buffer;
  user_id: string;
  created_at: DefaultedTimestamp;
  last_seen_at: DefaultedTimestamp;
  expires_at: Timestamp;
  second_factor_at: Timestamp | null;
}

/** control.audit_log: who changed what, when. */
export interface AuditLogTable {
  id: Generated<string>;
  at: DefaultedTimestamp;
  account_id: string | null;
  actor_user_id: string | null;
  action: string;
  target: string | null;
  detail: Generated<unknown>;
}

/** control.sign_in_failures: one failed sign-in per row, by IP and by hashed address. */
export interface SignInFailuresTable {
  bucket: string;
  at: DefaultedTimestamp;
}

export interface Database {
  'control.accounts': AccountsTable;
  'control.api_keys': ApiKeysTable;
  'control.tiles': TilesTable;
  'control.providers': ProvidersTable;
  'control.provider_secrets': ProviderSecretsTable;
  'control.provider_inbound_secrets': ProviderInboundSecretsTable;
  'control.pixel_keys': PixelKeysTable;
  'control.pixel_origins': PixelOriginsTable;
  'control.webhook_subscriptions': WebhookSubscriptionsTable;
  'control.webhook_secrets': WebhookSecretsTable;
  'control.outbound_events': OutboundEventsTable;
  'control.rate_counters': RateCountersTable;
  'control.sync_tasks': SyncTasksTable;
  'control.sync_outbox': SyncOutboxTable;
  'control.settings_outbox': SettingsOutboxTable;
  'control.recovery_codes': RecoveryCodesTable;
  'control.analyst_grants': AnalystGrantsTable;
  'control.users': UsersTable;
  'control.memberships': MembershipsTable;
  'control.invites': InvitesTable;
  'control.console_sessions': ConsoleSessionsTable;
  'control.audit_log': AuditLogTable;
  'control.sign_in_failures': SignInFailuresTable;
  'dispatcher.deliveries': DeliveriesTable;
  'dispatcher.delivery_attempts': DeliveryAttemptsTable;
  'dispatcher.subscription_quarantine': SubscriptionQuarantineTable;
}
