import { jsonBody, ok, paramRef, responseRef } from './ingest-paths.js';

/** The webhook and pixel operations of /v1/openapi.json (spec "Endpoints"). */
export const publicPaths = {
  '/webhooks/custom-api': {
    post: {
      summary: 'Single customer identity or consent event',
      description:
        'Auth: the ingest key as Bearer (preferred), or legacy query account_id and token. At least one of email, phone or external id is required, else 400. Deduplicated per account on event_type plus external_id (or a hash of the body); a duplicate answers {received: true, duplicate: true}, plus a warning when its content differs from the first event of the key (it is ignored all the same). 404 when the custom integration tile is not connected.',
      operationId: 'postCustomApiWebhook',
      tags: ['webhooks'],
      security: [{ ingestKey: [] }, { legacyTileToken: [] }],
      parameters: [paramRef('LegacyAccountId'), paramRef('LegacyToken')],
      requestBody: jsonBody('CustomApiEvent'),
      responses: {
        '200': ok('CustomApiResult', 'Received.'),
        '400': responseRef('BadRequest'),
        '401': responseRef('Unauthorized'),
        '404': responseRef('NotFound'),
        '429': responseRef('TooManyRequests'),
        '500': responseRef('InternalError'),
      },
    },
  },
  '/webhooks/zero-party': {
    post: {
      summary: 'Quiz and preference submission',
      description:
        'Auth: the zero-party tile token, in the query string only (account_id and token). At least one of email or an external id is required. Deduplicated on content. 404 when the zero-party tile is not connected.',
      operationId: 'postZeroPartyWebhook',
      tags: ['webhooks'],
      security: [{ legacyTileToken: [] }],
      parameters: [paramRef('LegacyAccountId'), paramRef('LegacyToken')],
      requestBody: jsonBody('ZeroPartySubmission'),
      responses: {
        '200': {
          description: 'Received (body not specified).',
          content: { 'application/json': { schema: { type: 'object' } } },
        },
        '400': responseRef('BadRequest'),
        '401': responseRef('Unauthorized'),
        '404': responseRef('NotFound'),
        '429': responseRef('TooManyRequests'),
      },
    },
  },
  '/pixel/collect': {
    post: {
      summary: 'Browser event batch',
      description:
        "Browser only. Header Origin must be on the pixel key's allow-list. Up to 50 events, body up to 48 KB. Unknown fields are rejected (422). 204 on accept and on a quiet drop (also, not a spec reason, the events of a browser erased with suppress); 403 on an invalid or revoked key, a disallowed origin or a demo account. Not a spec mode: dry_run=true checks the request the same way, stores nothing and answers 200 with each event that would be dropped and its code.",
      operationId: 'postPixelCollect',
      tags: ['pixel'],
      security: [],
      parameters: [
        {
          name: 'dry_run',
          in: 'query',
          required: false,
          schema: { type: 'boolean', default: false },
          description:
            'Not a spec parameter (the snippet never sends it): store nothing, answer 200 PixelDryRunResponse.',
        },
      ],
      requestBody: jsonBody('CollectorRequest'),
      responses: {
        '200': {
          description: 'Dry run only: what the real call would store and drop.',
          content: { 'application/json': { schema: { $ref: '#/components/schemas/PixelDryRunResponse' } } },
        },
        '204': { description: 'Accepted or quietly dropped (no body).' },
        '403': {
          description: 'Forbidden.',
          content: { 'application/json': { schema: { $ref: '#/components/schemas/DetailBody' } } },
        },
        '413': responseRef('PayloadTooLarge'),
        '422': responseRef('ValidationFailed'),
        '429': responseRef('TooManyRequests'),
        '503': {
          description:
            'The event log is not answering (an append failed or stalled), so nothing was stored. Retry after Retry-After seconds.',
          headers: { 'Retry-After': { schema: { type: 'integer' }, description: 'Seconds to wait.' } },
          content: { 'application/json': { schema: { $ref: '#/components/schemas/DetailBody' } } },
        },
      },
    },
  },
  '/pixel/v1/service-pixel.js': {
    get: {
      summary: 'Browser loader script',
      description: 'Cacheable for one hour.',
      operationId: 'getPixelLoader',
      tags: ['pixel'],
      security: [],
      responses: {
        '200': {
          description: 'The loader.',
          content: { 'application/javascript': { schema: { type: 'string' } } },
        },
      },
    },
  },
} as const;

export const CustomApiResult = {
  oneOf: [
    {
      type: 'object',
      required: ['received', 'customer_id', 'link_method', 'is_new'],
      properties: {
        received: { type: 'boolean' },
        customer_id: { type: 'string', format: 'uuid' },
        link_method: { enum: ['provider_id', 'email', 'phone', 'fuzzy', 'created'] },
        is_new: { type: 'boolean' },
      },
    },
    {
      type: 'object',
      required: ['received', 'duplicate'],
      properties: {
        received: { type: 'boolean' },
        duplicate: { const: true },
        warning: {
          type: 'string',
          description:
            'Added (not in the spec): present when this duplicate differs from the first event of its key. It was ignored; send consent changes with POST /ingest/customers or a distinct event_type.',
        },
      },
    },
  ],
} as const;
