/**
 * JSON Schemas of the gateway's answers, for /v1/openapi.json. Request bodies are NOT here: they come
 * from @holdfast/contracts, the very objects the validators are compiled from.
 */
const int = (description: string) => ({ type: 'integer', minimum: 0, description }) as const;
const str = (description: string) => ({ type: 'string', description }) as const;
const strings = (description: string) => ({ type: 'array', items: { type: 'string' }, description }) as const;
/** A dry run's `errors` or `warnings`: at most 50 rows, each naming its row by `index` first. */
const issues = <R extends readonly string[], P extends object>(required: R, properties: P) =>
  ({
    type: 'array',
    maxItems: 50,
    items: { type: 'object', required, properties: { index: { type: 'integer' }, ...properties } },
  }) as const;

export const DetailBody = {
  type: 'object',
  required: ['detail'],
  properties: { detail: str('What went wrong.') },
} as const;

export const ValidationErrorBody = {
  type: 'object',
  required: ['detail'],
  description: 'Validation error body (422), pydantic/FastAPI style.',
  properties: {
    detail: {
      type: 'array',
      items: {
        type: 'object',
        required: ['loc', 'msg', 'type'],
        properties: {
          loc: {
            type: 'array',
            items: { type: ['string', 'integer'] },
            description: 'For order rows: [body, orders, <row_index>, <field>].',
          },
          msg: str('Human-readable message.'),
          type: str('Machine-readable error type.'),
          input: { description: 'The offending value (scalars only).' },
          ctx: { type: 'object', description: 'Parameters of the failed rule.' },
        },
      },
    },
  },
} as const;

export const HealthResult = {
  type: 'object',
  required: ['ok', 'account_id', 'connected_integrations', 'orders_ingested', 'store_timezone', 'hint'],
  properties: {
    ok: { type: 'boolean' },
    account_id: { type: 'string', format: 'uuid' },
    connected_integrations: strings(
      'Connected tiles (custom_integration, zero_party) and email/SMS providers of the account.',
    ),
    orders_ingested: int('Total projected orders of the account.'),
    store_timezone: { type: ['string', 'null'], description: 'As set by PATCH /ingest/account.' },
    hint: str('Next steps, e.g. "awaiting setup" guidance for the custom integration tile.'),
  },
} as const;

export const OrdersResponse = {
  type: 'object',
  required: [
    'received',
    'distinct_order_ids',
    'deduped_in_batch',
    'accepted',
    'dropped_invalid',
    'orders_upserted',
    'customers_upserted',
    'naive_timestamps',
    'next',
  ],
  properties: {
    received: int('Rows received.'),
    distinct_order_ids: int('Distinct order_id values among the rows.'),
    deduped_in_batch: int('Rows replaced by a later row with the same order_id (last wins).'),
    accepted: int('Orders accepted.'),
    dropped_invalid: int(
      'Rows dropped: unparseable order_date or order_amount, or no customer id, email or phone.',
    ),
    dropped_suppressed: int(
      'Not a spec field; present only when > 0: rows dropped because they name an erased and suppressed person (code suppressed_identity).',
    ),
    orders_upserted: int('Orders appended (= accepted).'),
    customers_upserted: int(
      'Distinct customer identities carried by the accepted orders (customer_id, else email, else phone).',
    ),
    naive_timestamps: int('order_date values without a UTC offset, read as UTC.'),
    next: str('What to do next.'),
    warning: str('Present only when naive_timestamps > 0.'),
  },
} as const;

/** A dry run's required fields: the common ones, with the endpoint's own counters after would_drop. */
const dryRunRequired = (...own: string[]) => [
  'dry_run',
  'received',
  'would_accept',
  'would_drop',
  ...own,
  'errors',
  'warnings',
  'errors_truncated',
  'next',
];

const dryRunCommon = {
  dry_run: { const: true },
  received: int('Rows received.'),
  would_accept: int('Rows the real call would accept (0 when a currency would fail the whole batch).'),
  would_drop: int('Rows the real call would drop.'),
  errors_truncated: int('Errors beyond the 50 listed.'),
  next: str('What to do next.'),
} as const;

export const OrdersDryRunResponse = {
  type: 'object',
  required: dryRunRequired(),
  properties: {
    ...dryRunCommon,
    errors: issues(['index', 'order_id', 'codes'], {
      order_id: { type: 'string' },
      codes: {
        type: 'array',
        items: {
          enum: [
            'no_usable_identity',
            'unparseable_order_date_or_amount',
            'invalid_currency_code_fails_whole_batch',
            // Not a spec code: a row naming an erased and suppressed person.
            'suppressed_identity',
          ],
        },
      },
    }),
    warnings: issues(['index', 'order_id', 'code'], {
      order_id: { type: 'string' },
      code: {
        enum: ['unknown_fields_ignored', 'duplicate_in_batch_last_wins', 'naive_timestamp_read_as_utc'],
      },
      fields: strings('Only for unknown_fields_ignored: the fields not stored.'),
    }),
  },
} as const;

export const CustomersResponse = {
  type: 'object',
  required: ['received', 'customers_upserted', 'skipped_no_identity', 'subscriptions_applied'],
  properties: {
    received: int('Rows received.'),
    customers_upserted: int('Rows upserted (one per row with an identity).'),
    skipped_no_identity: int('Rows without external_id, email or phone.'),
    skipped_suppressed: int(
      'Not a spec field; present only when > 0: rows naming an erased and suppressed person (code suppressed_identity).',
    ),
    subscriptions_applied: int('Upserted rows carrying a subscription_status.'),
  },
} as const;

export const CustomersDryRunResponse = {
  type: 'object',
  description: 'Customers dry run: the shape of the orders dry run, keyed by external_id.',
  required: dryRunRequired('would_apply_subscriptions'),
  properties: {
    ...dryRunCommon,
    would_apply_subscriptions: int('Rows that would apply a subscription_status.'),
    errors: issues(['index', 'external_id', 'codes'], {
      external_id: { type: ['string', 'null'] },
      codes: { type: 'array', items: { enum: ['no_usable_identity', 'suppressed_identity'] } },
    }),
    warnings: issues(['index', 'external_id', 'code', 'fields'], {
      external_id: { type: ['string', 'null'] },
      code: {
        enum: [
          'unknown_fields_ignored',
          'invalid_phone_ignored',
          'naive_timestamp_read_as_utc',
          'unparseable_timestamp_ignored',
          'address_ignored_without_street_city_or_zip',
        ],
      },
      fields: strings('The fields concerned.'),
    }),
  },
} as const;

export const AccountSettingsResponse = {
  type: 'object',
  required: ['ok', 'store_timezone'],
  properties: { ok: { type: 'boolean' }, store_timezone: str('The stored IANA name.') },
} as const;

export const SyncQueued = {
  type: 'object',
  required: ['queued', 'task_id', 'status_url', 'message'],
  properties: {
    queued: { type: 'boolean' },
    task_id: { type: 'string', format: 'uuid' },
    status_url: str('/ingest/sync/<task_id>'),
    message: str('What happens next.'),
  },
} as const;

export const SyncTask = {
  type: 'object',
  required: ['task_id', 'queued_at', 'status'],
  properties: {
    task_id: { type: 'string', format: 'uuid' },
    queued_at: { type: 'string', format: 'date-time' },
    status: { enum: ['queued', 'running', 'done', 'failed', 'skipped'] },
    orders_added: int('Only when done: orders projected since the previous done task.'),
    customers_added: int('Only when done: customers projected since the previous done task.'),
    duration_ms: int('Only when done.'),
    reason: str('Only when skipped or failed, e.g. already_running.'),
  },
} as const;

export const BatchList = {
  type: 'object',
  required: ['batches'],
  properties: {
    batches: {
      type: 'array',
      description: 'Most recent first; records are kept 90 days.',
      items: {
        type: 'object',
        properties: {
          batch_id: { type: 'string', format: 'uuid' },
          endpoint: str('e.g. POST /ingest/orders'),
          dry_run: { type: 'boolean' },
          status: { enum: ['accepted', 'rejected', 'error', 'queued'] },
          http_status: { type: 'integer' },
          received: int('Rows received.'),
          accepted: int('Rows accepted (would be accepted, for a dry run).'),
          dropped: int('Rows dropped.'),
          error_codes: strings('Distinct error codes.'),
          warning_codes: strings('Distinct warning codes.'),
          errors: {
            type: ['array', 'null'],
            description:
              "Up to 50 entries with the client's own order_id / external_id and codes; never names, emails or phones.",
          },
          duration_ms: int('Time to answer.'),
          sync_task_id: { type: ['string', 'null'] },
          key_id: {
            type: ['string', 'null'],
            description: 'Id of the ingest key used (null for the legacy tile token).',
          },
          request_id: { type: ['string', 'null'], description: 'X-Request-Id, when sent.' },
          received_at: { type: 'string', format: 'date-time' },
        },
      },
    },
  },
} as const;

const status = { enum: ['queued', 'running', 'done', 'failed'] } as const;
const time = (description: string) => ({ type: 'string', format: 'date-time', description }) as const;
const nullableTime = (description: string) =>
  ({ type: ['string', 'null'], format: 'date-time', description }) as const;

export const ErasureQueued = {
  type: 'object',
  required: ['erasure_id', 'status', 'status_url'],
  additionalProperties: false,
  properties: {
    erasure_id: { type: 'string', format: 'uuid' },
    status,
    status_url: str('/v1/erasures/<erasure_id>'),
  },
} as const;

export const Erasure = {
  type: 'object',
  required: [
    'erasure_id',
    'status',
    'suppress',
    'requested_at',
    'started_at',
    'finished_at',
    'counters',
    'reason',
  ],
  additionalProperties: false,
  properties: {
    erasure_id: { type: 'string', format: 'uuid' },
    status,
    suppress: { type: 'boolean' },
    requested_at: time('When it was queued.'),
    started_at: nullableTime('When a worker first took it.'),
    finished_at: nullableTime('When it ended (done or failed).'),
    counters: {
      type: ['object', 'null'],
      description: 'Only when done.',
      required: ['customers', 'orders', 'subjects', 'keys_destroyed', 'rows_blanked', 'suppressions'],
      additionalProperties: false,
      properties: {
        customers: int('Customers of the person found in the read models.'),
        orders: int('Their orders whose buyer fields were blanked (amounts, dates, refunds stay).'),
        subjects: int('Data subjects whose keys were to be destroyed.'),
        keys_destroyed: int('Keys destroyed by this run.'),
        rows_blanked: int('Read-model rows changed or deleted.'),
        suppressions: int('Identifiers newly suppressed.'),
      },
    },
    reason: { type: ['string', 'null'], description: 'Only when failed.' },
  },
} as const;

export const ExportQueued = {
  type: 'object',
  required: ['export_id', 'status', 'status_url'],
  additionalProperties: false,
  properties: {
    export_id: { type: 'string', format: 'uuid' },
    status,
    status_url: str('/v1/exports/<export_id>'),
  },
} as const;

export const Export = {
  type: 'object',
  required: ['export_id', 'status', 'requested_at', 'finished_at', 'expires_at', 'reason', 'download_url'],
  additionalProperties: false,
  properties: {
    export_id: { type: 'string', format: 'uuid' },
    status,
    requested_at: time('When it was queued.'),
    finished_at: nullableTime('When it ended.'),
    expires_at: time('When the export and its document are deleted (7 days after the request).'),
    reason: { type: ['string', 'null'], description: 'Only when failed.' },
    download_url: { type: ['string', 'null'], description: '/v1/exports/<export_id>/download, once done.' },
  },
} as const;

const rows = (description: string) => ({ type: 'array', items: { type: 'object' }, description }) as const;

export const ExportDocument = {
  type: 'object',
  required: [
    'export_id',
    'account_id',
    'generated_at',
    'customer_ids',
    'profile',
    'orders',
    'events',
    'submissions',
    'pixel_activity',
    'campaign_sends',
    'scores',
    'campaign_decisions',
    'attributions',
  ],
  properties: {
    export_id: { type: 'string', format: 'uuid' },
    account_id: { type: 'string', format: 'uuid' },
    generated_at: time('When the document was built.'),
    customer_ids: { type: 'array', items: { type: 'string', format: 'uuid' } },
    profile: rows('The customer rows (identity, contact, address, consent, subscription).'),
    orders: rows('Their orders.'),
    events: rows('Their custom-api events.'),
    submissions: rows('Their zero-party submissions.'),
    pixel_activity: rows('Pixel events of sessions stitched to them.'),
    campaign_sends: rows('Messages sent to them.'),
    scores: rows('Their scores (churn risk, lifecycle, predicted value).'),
    campaign_decisions: rows('Campaign assignments: treated or holdout, sent or not.'),
    attributions: rows('Their orders attributed to campaigns.'),
  },
} as const;

/** POST /pixel/collect?dry_run=true (not a spec mode): what the real call would store and drop. */
export const PixelDryRunResponse = {
  type: 'object',
  required: ['dry_run', 'received', 'would_accept', 'would_drop', 'errors', 'next'],
  additionalProperties: false,
  properties: {
    dry_run: { const: true },
    received: int('Events received.'),
    would_accept: int('Events the real call would store.'),
    would_drop: int('Events the real call would drop quietly (still a 204).'),
    errors: issues(['index', 'event_id', 'codes'], {
      event_id: { type: 'string' },
      codes: {
        type: 'array',
        items: {
          enum: ['too_old', 'too_new', 'no_consent', 'suppressed_browser'],
          description:
            'too_old / too_new: outside [now - 30 days, now + 1 hour]; no_consent: consent_state not granted; suppressed_browser (not a spec reason): a browser erased with suppress.',
        },
      },
    }),
    next: str('What to do next.'),
  },
} as const;
