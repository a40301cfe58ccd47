/** The /v1/ operations of /v1/openapi.json: the ingest routes again, and the read routes. */
import { ingestPaths, ok, paramRef, responseRef } from './ingest-paths.js';

type Operation = { operationId: string; tags: string[] } & Record<string, unknown>;

/**
 * Every /ingest/* operation again under /v1/ (`POST /v1/orders` is `POST /ingest/orders`): the same
 * description, parameters, bodies and answers, its own operationId (suffix `V1`).
 */
export const ingestV1Paths = Object.fromEntries(
  Object.entries(ingestPaths).map(([path, ops]) => [
    path.replace(/^\/ingest\//, '/v1/'),
    Object.fromEntries(
      Object.entries(ops as unknown as Record<string, Operation>).map(([method, o]) => [
        method,
        { ...o, operationId: `${o.operationId}V1`, tags: ['v1-ingest'] },
      ]),
    ),
  ]),
);

const readErrors = {
  '401': responseRef('Unauthorized'),
  '403': responseRef('IngestKeyCannotRead'),
  '422': responseRef('ValidationFailed'),
  '429': responseRef('TooManyRequests'),
  '500': responseRef('InternalError'),
};
const notFound = (description: string) => ({
  description,
  content: { 'application/json': { schema: { $ref: '#/components/schemas/DetailBody' } } },
});
const cached = (name: string, description: string) => ({
  '200': {
    ...ok(name, description),
    headers: {
      ETag: {
        schema: { type: 'string' },
        description: 'Send it back in If-None-Match: 304 while unchanged.',
      },
      RateLimit: { schema: { type: 'string' }, description: '"read";r=<remaining>;t=<seconds>' },
      'RateLimit-Policy': { schema: { type: 'string' }, description: '"read";q=1200;w=60' },
    },
  },
  '304': { description: 'Not modified (If-None-Match named the current ETag).' },
});
const read = (operationId: string, summary: string, description: string, extra: Record<string, unknown>) => ({
  get: {
    operationId,
    summary,
    description,
    tags: ['read'],
    security: [{ readKey: [] }, { ingestKey: [] }],
    ...extra,
  },
});
const page = [paramRef('IfNoneMatch'), paramRef('PageLimit'), paramRef('PageCursor')];

export const readPaths = {
  '/v1/customers/{external_id}': read(
    'getCustomer',
    'A customer with its scores',
    "The profile (ids, contact, address, consent, subscription) and the scores of the account's latest recompute (null before it). Another account's external id answers 404.",
    {
      parameters: [
        { name: 'external_id', in: 'path', required: true, schema: { type: 'string', minLength: 1 } },
        paramRef('IfNoneMatch'),
      ],
      responses: {
        ...cached('Customer', 'The customer.'),
        ...readErrors,
        '404': notFound('No customer with this external id in the key’s account.'),
      },
    },
  ),
  '/v1/customers': read(
    'listCustomers',
    'Customers, filtered, a page at a time',
    'Keyset pages in customer_id order; the cursor stays correct while writes go on. Filters: lifecycle_state, churn_risk_min, churn_risk_max (only scored customers match a score filter), updated_since (profile or scores changed at or after it).',
    {
      parameters: [
        ...page,
        {
          name: 'lifecycle_state',
          in: 'query',
          schema: { enum: ['Stable', 'Slowing', 'Overdue', 'Lapsed'] },
        },
        { name: 'churn_risk_min', in: 'query', schema: { type: 'number', minimum: 0, maximum: 1 } },
        { name: 'churn_risk_max', in: 'query', schema: { type: 'number', minimum: 0, maximum: 1 } },
        { name: 'updated_since', in: 'query', schema: { type: 'string', format: 'date-time' } },
      ],
      responses: { ...cached('CustomerPage', 'A page of customers.'), ...readErrors },
    },
  ),
  '/v1/holdout': read(
    'listHoldout',
    'The current holdout members',
    'Customers in the universal holdout (about 5%) as of the latest recompute, a page at a time. They must not be contacted through side channels (spec, billing rule c).',
    {
      parameters: page,
      responses: { ...cached('HoldoutPage', 'A page of holdout members.'), ...readErrors },
    },
  ),
  '/v1/audiences/{campaign_type}': read(
    'listAudience',
    'Who would be in an audience now',
    'The customers the audience rule gives this campaign type over the latest scores, holdout excluded (the rule the recompute plans with). Consent, cool-down and frequency cap are applied at send time, not here. An unknown type answers 404.',
    {
      parameters: [
        {
          name: 'campaign_type',
          in: 'path',
          required: true,
          schema: { enum: ['win_back', 'replenishment', 'vip'] },
        },
        ...page,
      ],
      responses: {
        ...cached('AudiencePage', 'A page of audience members.'),
        ...readErrors,
        '404': notFound('Unknown campaign type.'),
      },
    },
  ),
  '/v1/lift': read(
    'listLift',
    'Lift reports per type and month',
    'Lift against the holdout with its interval, one-sided p-value, MDE, billable revenue and settlement state, newest period first.',
    {
      parameters: [
        paramRef('IfNoneMatch'),
        { name: 'campaign_type', in: 'query', schema: { enum: ['win_back', 'replenishment', 'vip'] } },
      ],
      responses: {
        ...cached('LiftReports', 'The lift reports.'),
        ...readErrors,
        '404': notFound('Unknown campaign type.'),
      },
    },
  ),
};

/** The parameters, answers and security scheme the /v1/ read operations reference. */
export const readComponents = {
  parameters: {
    IfNoneMatch: {
      name: 'If-None-Match',
      in: 'header',
      required: false,
      schema: { type: 'string' },
      description: 'An ETag of an earlier answer: 304 without a body while the answer is unchanged.',
    },
    PageLimit: {
      name: 'limit',
      in: 'query',
      required: false,
      schema: { type: 'integer', minimum: 1, maximum: 5000, default: 100 },
    },
    PageCursor: {
      name: 'cursor',
      in: 'query',
      required: false,
      schema: { type: 'string' },
      description: 'next_cursor of the previous page (opaque). A cursor this API did not issue is a 422.',
    },
  },
  responses: {
    ReadKeyForbidden: {
      description: 'A read key (rk_live_) on an ingest or other write route: it never writes.',
      content: { 'application/json': { schema: { $ref: '#/components/schemas/DetailBody' } } },
    },
    IngestKeyCannotRead: {
      description:
        'An ingest key on a read route of an account that does not let its ingest keys read (the default).',
      content: { 'application/json': { schema: { $ref: '#/components/schemas/DetailBody' } } },
    },
  },
  securitySchemes: {
    readKey: {
      type: 'http',
      scheme: 'bearer',
      description:
        'Authorization: Bearer <READ_KEY> (rk_live_): the read routes only. An ingest key reads too when the account allows it (holdfast accounts set-read-with-ingest-key ID on).',
    },
  },
};

/** Every /v1/ path with all its operations (POST /v1/customers and GET /v1/customers share a path). */
export const v1Paths: Record<string, Record<string, unknown>> = { ...ingestV1Paths };
for (const [path, ops] of Object.entries(readPaths)) v1Paths[path] = { ...v1Paths[path], ...ops };
