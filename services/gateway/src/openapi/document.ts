import {
  accountSettingsSchema,
  collectorRequestSchema,
  customApiEventSchema,
  customersRequestSchema,
  erasureRequestSchema,
  exportRequestSchema,
  ordersRequestSchema,
  zeroPartySubmissionSchema,
} from '@holdfast/contracts';
import { ingestPaths, schemaRef } from './ingest-paths.js';
import { privacyPaths } from './privacy-paths.js';
import { CustomApiResult, publicPaths } from './public-paths.js';
import { readComponents, v1Paths } from './read-paths.js';
import { reportPaths } from './report-paths.js';
import { sendPaths, sendSchemas } from './send-paths.js';
import * as reportSchemas from './report-schemas.js';
import * as readSchemas from './read-schemas.js';
import {
  webhookComponents,
  webhookDeliveries,
  webhookEventSchemas,
  webhookPaths,
  webhookSchemas,
} from './webhook-paths.js';
import * as responses from './response-schemas.js';

const detail = (description: string) => ({
  description,
  content: { 'application/json': { schema: schemaRef('DetailBody') } },
});

/**
 * The machine-readable description of the public routes (spec "Versioning" 3), served at
 * /v1/openapi.json. Request bodies are the JSON Schemas of @holdfast/contracts themselves (the objects
 * the request validators are compiled from), so the document cannot drift from what is enforced.
 */
export function buildOpenApiDocument() {
  return {
    openapi: '3.1.0',
    jsonSchemaDialect: 'https://json-schema.org/draft/2020-12/schema',
    info: {
      title: 'Holdfast API',
      version: 'v0',
      description:
        'Push orders and customers from a custom or headless platform (/ingest/*, and the same routes under /v1/), and read customers, scores, the holdout, audiences and lift (/v1/ read routes, read keys). The account is derived from the authenticated key alone. Timestamps are ISO 8601; one without an offset is read as UTC.',
    },
    paths: {
      ...ingestPaths,
      ...publicPaths,
      ...v1Paths,
      ...reportPaths,
      ...privacyPaths,
      ...sendPaths,
      ...webhookPaths,
    },
    // What the dispatcher POSTs to subscribers (OpenAPI 3.1): docs/webhooks.md.
    webhooks: webhookDeliveries,
    components: {
      schemas: {
        OrdersRequest: ordersRequestSchema,
        CustomersRequest: customersRequestSchema,
        AccountSettings: accountSettingsSchema,
        CollectorRequest: collectorRequestSchema,
        CustomApiEvent: customApiEventSchema,
        ZeroPartySubmission: zeroPartySubmissionSchema,
        ErasureRequest: erasureRequestSchema,
        ExportRequest: exportRequestSchema,
        CustomApiResult,
        ...responses,
        ...readSchemas,
        ...webhookSchemas,
        ...webhookEventSchemas,
        ...reportSchemas.schemas,
        ...sendSchemas,
      },
      parameters: {
        ServiceAccountId: {
          name: 'X-Service-Account-Id',
          in: 'header',
          required: false,
          schema: { type: 'string', format: 'uuid' },
          description:
            "Optional with an ingest key (must match the key's account, else 401); required with the legacy tile token (missing or not a UUID: 400).",
        },
        LegacyAccountId: {
          name: 'account_id',
          in: 'query',
          required: false,
          deprecated: true,
          schema: { type: 'string', format: 'uuid' },
          description: 'Legacy tile-token authentication only.',
        },
        LegacyToken: {
          name: 'token',
          in: 'query',
          required: false,
          deprecated: true,
          schema: { type: 'string' },
          description: 'Legacy tile token. An ingest key in the query string is rejected (401).',
        },
        RequestId: {
          name: 'X-Request-Id',
          in: 'header',
          required: false,
          schema: { type: 'string', maxLength: 200 },
          description: 'Stored with the batch record and echoed back.',
        },
        DryRun: {
          name: 'dry_run',
          in: 'query',
          required: false,
          schema: { type: 'boolean', default: false },
          description: 'Validate and classify every row; write nothing but the batch record.',
        },
        ...readComponents.parameters,
      },
      responses: {
        BadRequest: detail('Empty batch; missing or invalid account id (legacy path).'),
        Unauthorized: detail(
          'Ingest key missing, invalid, expired, revoked, in the query string, or mismatched with X-Service-Account-Id; sk_live_ keys; wrong tile token.',
        ),
        NotFound: detail(
          "No connected custom integration (legacy path); unknown sync task; unknown erasure or export, another account's, or an expired export.",
        ),
        PayloadTooLarge: {
          description:
            'Body over 32 MiB: plain text "payload too large" (split by bytes). More than 5,000 rows: JSON detail "Batch too large (N > 5000). Page your upload." (split by rows).',
          content: {
            'text/plain': { schema: { type: 'string', const: 'payload too large' } },
            'application/json': { schema: schemaRef('DetailBody') },
          },
        },
        ValidationFailed: {
          description: 'Validation error body.',
          content: { 'application/json': { schema: schemaRef('ValidationErrorBody') } },
        },
        TooManyRequests: {
          description:
            'Rate limit exceeded (600 requests per minute per key, 30 failed authentications per minute per IP, one sync per 10 minutes per account, or request bodies in flight over the share of the body budget a key or an account may hold).',
          headers: { 'Retry-After': { schema: { type: 'integer' }, description: 'Seconds to wait.' } },
          content: { 'application/json': { schema: schemaRef('DetailBody') } },
        },
        InternalError: detail(
          'Failure; for orders nothing of the batch was written, so the same batch can be retried.',
        ),
        ...readComponents.responses,
        ...webhookComponents.responses,
      },
      securitySchemes: {
        ingestKey: {
          type: 'http',
          scheme: 'bearer',
          description:
            'Authorization: Bearer <INGEST_KEY> (tk_live_, or tk_test_ for the sandbox). sk_live_ keys are refused.',
        },
        tileTokenBearer: {
          type: 'http',
          scheme: 'bearer',
          description:
            'Legacy: Authorization: Bearer <TILE_TOKEN> (tile_) together with header X-Service-Account-Id.',
        },
        legacyTileToken: {
          type: 'apiKey',
          in: 'query',
          name: 'token',
          description: 'Legacy: query account_id=<uuid>&token=<TILE_TOKEN>.',
        },
        ...readComponents.securitySchemes,
        ...webhookComponents.securitySchemes,
      },
    },
  };
}

/** The document type (for tests and tools). */
export type OpenApiDocument = ReturnType<typeof buildOpenApiDocument>;
