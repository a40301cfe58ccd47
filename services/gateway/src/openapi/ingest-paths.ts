/** The /ingest/* operations of /v1/openapi.json. */
export const schemaRef = (name: string) => ({ $ref: `#/components/schemas/${name}` });
export const responseRef = (name: string) => ({ $ref: `#/components/responses/${name}` });
export const paramRef = (name: string) => ({ $ref: `#/components/parameters/${name}` });
export const jsonBody = (name: string, description?: string) => ({
  ...(description ? { description } : {}),
  required: true,
  content: { 'application/json': { schema: schemaRef(name) } },
});
export const ok = (name: string, description: string) => ({
  description,
  content: { 'application/json': { schema: schemaRef(name) } },
});

const ingestParams = [
  paramRef('ServiceAccountId'),
  paramRef('LegacyAccountId'),
  paramRef('LegacyToken'),
  paramRef('RequestId'),
];
const ingestSecurity = [{ ingestKey: [] }, { tileTokenBearer: [] }, { legacyTileToken: [] }];

/** Answers every authenticated ingest route can give. */
const authErrors = {
  '400': responseRef('BadRequest'),
  '401': responseRef('Unauthorized'),
  '403': responseRef('ReadKeyForbidden'),
  '404': responseRef('NotFound'),
  '429': responseRef('TooManyRequests'),
  '500': responseRef('InternalError'),
};

const batchErrors = {
  ...authErrors,
  '413': responseRef('PayloadTooLarge'),
  '422': responseRef('ValidationFailed'),
};

const op = (summary: string, description: string, extra: Record<string, unknown>) => ({
  summary,
  description,
  tags: ['ingest'],
  security: ingestSecurity,
  parameters: ingestParams,
  ...extra,
});

export const ingestPaths = {
  '/ingest/health': {
    get: op('Verify the key and report state', 'No body. Returns the health result.', {
      operationId: 'getHealth',
      responses: { '200': ok('HealthResult', 'Health result.'), ...authErrors },
    }),
  },
  '/ingest/orders': {
    post: op(
      'Batch upsert of orders',
      'Idempotent on order_id; the whole batch is one transaction (any failure: 500, nothing written). 1 to 5000 rows: an empty batch is 400, more rows the JSON 413; a body over 32 MiB is the plain-text 413. A currency that is not a 3-letter code fails the whole batch with 422 (entries at [body, orders, i, currency]) and writes nothing. With dry_run=true every row is validated exactly as the real call would treat it and nothing is written but the batch record.',
      {
        operationId: 'postOrders',
        parameters: [...ingestParams, paramRef('DryRun')],
        requestBody: jsonBody('OrdersRequest'),
        responses: {
          '200': {
            description: 'Real call: OrdersResponse. Dry run: OrdersDryRunResponse.',
            content: {
              'application/json': {
                schema: { oneOf: [schemaRef('OrdersResponse'), schemaRef('OrdersDryRunResponse')] },
              },
            },
          },
          ...batchErrors,
        },
      },
    ),
  },
  '/ingest/customers': {
    post: op(
      'Batch upsert of customers',
      'Idempotent. 1 to 5000 rows (400 when empty, JSON 413 above); body up to 32 MiB (plain-text 413). subscription_status outside active, paused, cancelled is a 422. With dry_run=true nothing is written but the batch record; the dry run answers per row like the orders dry run.',
      {
        operationId: 'postCustomers',
        parameters: [...ingestParams, paramRef('DryRun')],
        requestBody: jsonBody('CustomersRequest'),
        responses: {
          '200': {
            description: 'Real call: CustomersResponse. Dry run: CustomersDryRunResponse.',
            content: {
              'application/json': {
                schema: { oneOf: [schemaRef('CustomersResponse'), schemaRef('CustomersDryRunResponse')] },
              },
            },
          },
          ...batchErrors,
        },
      },
    ),
  },
  '/ingest/account': {
    patch: op('Set account settings', 'store_timezone must be an IANA name (CST or a missing field: 422).', {
      operationId: 'patchAccount',
      requestBody: jsonBody('AccountSettings'),
      responses: { '200': ok('AccountSettingsResponse', 'Stored.'), ...batchErrors },
    }),
  },
  '/ingest/sync': {
    post: op(
      'Queue an analytics recompute',
      'No body. One call per 10 minutes per account, otherwise 429 with Retry-After. The nightly recompute runs at 02:00 UTC regardless.',
      {
        operationId: 'postSync',
        responses: {
          '200': ok('SyncQueued', 'Queued.'),
          ...authErrors,
          '503': {
            description:
              'The event log could not be reached, so nothing was queued (the throttle is not used up). Retry after Retry-After seconds.',
            headers: { 'Retry-After': { schema: { type: 'integer' }, description: 'Seconds to wait.' } },
            content: { 'application/json': { schema: schemaRef('DetailBody') } },
          },
        },
      },
    ),
  },
  '/ingest/sync/{task_id}': {
    get: op(
      'Status of a queued recompute',
      "Only this account's tasks are visible: another account's or an unknown task id gives 404.",
      {
        operationId: 'getSyncTask',
        parameters: [
          ...ingestParams,
          {
            name: 'task_id',
            in: 'path',
            required: true,
            schema: { type: 'string' },
            description: 'Task id.',
          },
        ],
        responses: { '200': ok('SyncTask', 'The task.'), ...authErrors },
      },
    ),
  },
  '/ingest/batches': {
    get: op('Recent ingest activity', "The account's most recent ingest calls, newest first, kept 90 days.", {
      operationId: 'getBatches',
      parameters: [
        ...ingestParams,
        {
          name: 'limit',
          in: 'query',
          required: false,
          schema: { type: 'integer', minimum: 1, maximum: 200, default: 50 },
          description: 'How many records (1 to 200; anything else is a 422).',
        },
      ],
      responses: {
        '200': ok('BatchList', 'Batch records.'),
        ...authErrors,
        '422': responseRef('ValidationFailed'),
      },
    }),
  },
} as const;
