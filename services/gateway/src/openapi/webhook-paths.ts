// /v1/webhooks in /v1/openapi.json: webhook subscriptions and their deliveries, for outbound keys
// (sk_live_). docs/webhooks.md, "Managing subscriptions over HTTP".
import { WEBHOOK_EVENT_TYPES } from '@holdfast/domain';
import { jsonBody, ok, responseRef, schemaRef } from './ingest-paths.js';

const nullable = (schema: Record<string, unknown>) => ({ anyOf: [schema, { type: 'null' }] });
const time = { type: 'string', format: 'date-time' } as const;
const uuid = { type: 'string', format: 'uuid' } as const;
const eventTypes = {
  type: 'array',
  minItems: 1,
  uniqueItems: true,
  items: { type: 'string', enum: [...WEBHOOK_EVENT_TYPES] },
} as const;
const secret = {
  type: 'string',
  pattern: '^whsec_[0-9A-Za-z]{32}$',
  description:
    'The signing secret, shown this once (store it: it is never answered again). X-Service-Signature and webhook-signature (Standard Webhooks) are keyed with it.',
} as const;

const webhookProperties = {
  id: uuid,
  url: { type: 'string' },
  event_types: { ...eventTypes, description: 'The event types delivered to it.' },
  created_at: time,
} as const;

export const webhookSchemas = {
  Webhook: {
    type: 'object',
    required: ['id', 'url', 'event_types', 'created_at'],
    additionalProperties: false,
    properties: webhookProperties,
  },
  WebhookCreated: {
    type: 'object',
    required: ['id', 'url', 'event_types', 'created_at', 'secret'],
    additionalProperties: false,
    properties: { ...webhookProperties, secret },
  },
  WebhookList: {
    type: 'object',
    required: ['webhooks'],
    additionalProperties: false,
    properties: { webhooks: { type: 'array', items: schemaRef('Webhook') } },
  },
  NewWebhook: {
    type: 'object',
    required: ['url'],
    properties: {
      url: {
        type: 'string',
        maxLength: 2048,
        description:
          'Where deliveries go: a public https URL (private, loopback and link-local addresses are refused, as every delivery is).',
      },
      event_types: { ...eventTypes, default: ['campaign.sent'] },
    },
  },
  SecretRotation: {
    type: 'object',
    properties: {
      grace_seconds: {
        type: 'integer',
        minimum: 0,
        maximum: 604800,
        default: 86400,
        description: 'How long the old secret keeps signing beside the new one.',
      },
    },
  },
  SecretRotated: {
    type: 'object',
    required: ['id', 'secret', 'previous_secret_expires_at'],
    additionalProperties: false,
    properties: { id: uuid, secret, previous_secret_expires_at: time },
  },
  DeliveryAttempt: {
    type: 'object',
    required: ['attempt', 'attempted_at', 'succeeded', 'status_code', 'error', 'duration_ms'],
    additionalProperties: false,
    properties: {
      attempt: { type: 'integer', minimum: 1 },
      attempted_at: time,
      succeeded: { type: 'boolean' },
      status_code: nullable({ type: 'integer' }),
      error: nullable({
        type: 'string',
        description:
          'http_<status>, timeout, connection_failed, dns_failed, tls_failed, destination_refused, redirect_refused or response_too_large.',
      }),
      duration_ms: { type: 'integer', minimum: 0 },
    },
  },
  Delivery: {
    type: 'object',
    required: [
      'delivery_id',
      'event',
      'status',
      'attempts',
      'created_at',
      'delivered_at',
      'next_attempt_at',
      'last_status_code',
      'last_error',
      'attempt_log',
    ],
    additionalProperties: false,
    properties: {
      delivery_id: { ...uuid, description: 'X-Service-Delivery and webhook-id: the same on every attempt.' },
      event: { type: 'string', enum: [...WEBHOOK_EVENT_TYPES] },
      status: { type: 'string', enum: ['pending', 'delivered', 'failed', 'cancelled'] },
      attempts: { type: 'integer', minimum: 0 },
      created_at: time,
      delivered_at: nullable(time),
      next_attempt_at: nullable(time),
      last_status_code: nullable({ type: 'integer' }),
      last_error: nullable({ type: 'string' }),
      attempt_log: { type: 'array', items: schemaRef('DeliveryAttempt') },
    },
  },
  DeliveryList: {
    type: 'object',
    required: ['deliveries'],
    additionalProperties: false,
    properties: { deliveries: { type: 'array', items: schemaRef('Delivery') } },
  },
  RedeliveryScheduled: {
    type: 'object',
    required: ['delivery_id', 'status'],
    additionalProperties: false,
    properties: { delivery_id: uuid, status: { const: 'pending' } },
  },
} as const;

const detailResponse = (description: string) => ({
  description,
  content: { 'application/json': { schema: schemaRef('DetailBody') } },
});
const errors = {
  '401': responseRef('Unauthorized'),
  '403': responseRef('OutboundKeyRequired'),
  '429': responseRef('TooManyRequests'),
  '500': responseRef('InternalError'),
};
const notFound = { '404': detailResponse('No such subscription (or delivery) in the key’s account.') };
const idParam = { name: 'id', in: 'path', required: true, schema: uuid, description: 'The subscription id.' };
const op = (operationId: string, summary: string, description: string, extra: Record<string, unknown>) => ({
  operationId,
  summary,
  description,
  tags: ['webhooks'],
  security: [{ outboundKey: [] }],
  ...extra,
});

export const webhookPaths = {
  '/v1/webhooks': {
    post: op(
      'createWebhook',
      'Subscribe a URL to outbound events',
      'Creates a subscription of the key’s account; the answer carries its whsec_ signing secret, shown this once (Cache-Control: no-store).',
      {
        requestBody: jsonBody('NewWebhook'),
        responses: {
          '201': ok('WebhookCreated', 'Created; the secret is shown this once.'),
          ...errors,
          '422': responseRef('ValidationFailed'),
          '503': detailResponse('This gateway cannot seal secrets (HOLDFAST_WEBHOOK_SEAL_KEY is not set).'),
        },
      },
    ),
    get: op(
      'listWebhooks',
      'The account’s subscriptions',
      'Active subscriptions, oldest first; never a secret.',
      {
        responses: { '200': ok('WebhookList', 'The subscriptions.'), ...errors },
      },
    ),
  },
  '/v1/webhooks/{id}': {
    get: op('getWebhook', 'One subscription', 'Never its secret.', {
      parameters: [idParam],
      responses: { '200': ok('Webhook', 'The subscription.'), ...errors, ...notFound },
    }),
    delete: op(
      'deleteWebhook',
      'Remove a subscription',
      'No more deliveries to it (pending ones are cancelled); it is no longer listed.',
      {
        parameters: [idParam],
        responses: { '204': { description: 'Removed.' }, ...errors, ...notFound },
      },
    ),
  },
  '/v1/webhooks/{id}/rotate-secret': {
    post: op(
      'rotateWebhookSecret',
      'A new signing secret',
      'A new whsec_ secret, shown this once. During the grace window deliveries carry a webhook-signature per secret (new first); X-Service-Signature uses the new one at once.',
      {
        parameters: [idParam],
        requestBody: { ...jsonBody('SecretRotation'), required: false },
        responses: {
          '200': ok('SecretRotated', 'Rotated; the new secret is shown this once.'),
          ...errors,
          ...notFound,
          '422': responseRef('ValidationFailed'),
          '503': detailResponse('This gateway cannot seal secrets (HOLDFAST_WEBHOOK_SEAL_KEY is not set).'),
        },
      },
    ),
  },
  '/v1/webhooks/{id}/deliveries': {
    get: op(
      'listWebhookDeliveries',
      'Deliveries with their attempts',
      'Newest first, each with its attempt log (time, status code, error class).',
      {
        parameters: [
          idParam,
          {
            name: 'status',
            in: 'query',
            required: false,
            schema: { type: 'string', enum: ['pending', 'delivered', 'failed', 'cancelled'] },
          },
          {
            name: 'limit',
            in: 'query',
            required: false,
            schema: { type: 'integer', minimum: 1, maximum: 500, default: 50 },
          },
        ],
        responses: {
          '200': ok('DeliveryList', 'The deliveries.'),
          ...errors,
          ...notFound,
          '422': responseRef('ValidationFailed'),
        },
      },
    ),
  },
  '/v1/webhooks/{id}/deliveries/{delivery_id}/redeliver': {
    post: op(
      'redeliverWebhookDelivery',
      'One more attempt of a failed delivery',
      'Due now, with the same delivery id and body bytes; if it fails it is failed again.',
      {
        parameters: [idParam, { name: 'delivery_id', in: 'path', required: true, schema: uuid }],
        responses: {
          '202': ok('RedeliveryScheduled', 'Scheduled.'),
          ...errors,
          ...notFound,
          '409': detailResponse('The delivery is not failed (pending, delivered or cancelled).'),
        },
      },
    ),
  },
};

const event = (name: string, data: Record<string, unknown>, required: readonly string[]) => ({
  type: 'object',
  required: ['event', 'data'],
  additionalProperties: false,
  properties: {
    event: { const: name },
    data: { type: 'object', required: [...required], additionalProperties: false, properties: data },
  },
});
const nullableNumber = nullable({ type: 'number' });
const externalId = nullable({
  type: 'string',
  description: 'The customer’s external id (null when it has none).',
});

/** The bodies the dispatcher POSTs to subscriptions (docs/webhooks.md, "Event types"). */
export const webhookEventSchemas = {
  CampaignSentEvent: event(
    'campaign.sent',
    { campaign_type: { type: 'string' }, provider: { type: 'string' }, tracking_id: { type: 'string' } },
    ['campaign_type', 'provider', 'tracking_id'],
  ),
  CustomerChurnedEvent: event(
    'customer.churned',
    {
      customer_external_id: externalId,
      customer_id: uuid,
      lifecycle_state: { const: 'Lapsed' },
      previous_lifecycle_state: { type: 'string', enum: ['Stable', 'Slowing', 'Overdue'] },
      churn_risk: { type: 'number', minimum: 0, maximum: 1 },
      purchases: { type: 'integer', minimum: 0 },
      scored_at: time,
    },
    [
      'customer_external_id',
      'customer_id',
      'lifecycle_state',
      'previous_lifecycle_state',
      'churn_risk',
      'purchases',
      'scored_at',
    ],
  ),
  RecoveryAttributedEvent: event(
    'recovery.attributed',
    {
      customer_external_id: externalId,
      order_id: { type: 'string' },
      tracking_id: { type: 'string' },
      campaign_type: { type: 'string' },
      channel: { type: 'string' },
      method: { type: 'string', enum: ['exact', 'last_touch'] },
      order_date: time,
      net_revenue: { type: 'number', description: 'In the account’s reporting currency.' },
    },
    [
      'customer_external_id',
      'order_id',
      'tracking_id',
      'campaign_type',
      'channel',
      'method',
      'order_date',
      'net_revenue',
    ],
  ),
  LiftProvenEvent: event(
    'lift.proven',
    {
      campaign_type: { type: 'string' },
      period_start: time,
      period_end: time,
      lift: nullableNumber,
      interval: nullable({
        type: 'object',
        required: ['low', 'high'],
        additionalProperties: false,
        properties: { low: { type: 'number' }, high: { type: 'number' } },
      }),
      p_value: nullableNumber,
      incremental_revenue: nullableNumber,
      billable_revenue: { type: 'number', exclusiveMinimum: 0 },
      settlement_status: { type: 'string', enum: ['provisional', 'final'] },
    },
    [
      'campaign_type',
      'period_start',
      'period_end',
      'lift',
      'interval',
      'p_value',
      'incremental_revenue',
      'billable_revenue',
      'settlement_status',
    ],
  ),
  SyncCompletedEvent: event(
    'sync.completed',
    {
      task_id: uuid,
      status: { type: 'string', enum: ['done', 'failed', 'skipped'] },
      orders_added: nullable({ type: 'integer' }),
      customers_added: nullable({ type: 'integer' }),
      duration_ms: nullable({ type: 'integer' }),
      reason: nullable({ type: 'string' }),
      finished_at: time,
    },
    ['task_id', 'status', 'orders_added', 'customers_added', 'duration_ms', 'reason', 'finished_at'],
  ),
};

const delivery = (name: string, schema: string, summary: string) => ({
  post: {
    operationId: `${name}Webhook`,
    summary,
    description:
      'POSTed to every active subscription that chose this event type, signed (X-Service-Signature, and webhook-id/webhook-timestamp/webhook-signature of Standard Webhooks); X-Service-Delivery is the delivery id, the same on every retry. Any 2xx within 10 s is success; retried after 15, 30 and 45 minutes.',
    requestBody: jsonBody(schema),
    responses: { '200': { description: 'Received (any 2xx).' } },
  },
});

/** OpenAPI 3.1 `webhooks`: what the dispatcher sends to subscribers. */
export const webhookDeliveries = {
  'campaign.sent': delivery('campaignSent', 'CampaignSentEvent', 'A campaign message was sent'),
  'customer.churned': delivery(
    'customerChurned',
    'CustomerChurnedEvent',
    'A customer’s lifecycle state moved into Lapsed',
  ),
  'recovery.attributed': delivery(
    'recoveryAttributed',
    'RecoveryAttributedEvent',
    'An order was attributed to a message',
  ),
  'lift.proven': delivery('liftProven', 'LiftProvenEvent', 'A month’s lift report became billable'),
  'sync.completed': delivery('syncCompleted', 'SyncCompletedEvent', 'A sync task ended'),
};

export const webhookComponents = {
  responses: {
    OutboundKeyRequired: detailResponse(
      'An ingest or read key on /v1/webhooks: webhook management takes an outbound key (sk_live_).',
    ),
  },
  securitySchemes: {
    outboundKey: {
      type: 'http',
      scheme: 'bearer',
      description:
        'Authorization: Bearer <OUTBOUND_KEY> (sk_live_, holdfast keys mint --kind outbound): /v1/webhooks only; it authorizes nothing else.',
    },
  },
};
