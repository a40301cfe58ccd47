import { randomUUID } from 'node:crypto';
import { Ajv2020 } from 'ajv/dist/2020.js';
import {
  customerChurned,
  liftProven,
  recoveryAttributed,
  syncCompleted,
  webhookBody,
  WEBHOOK_EVENT_TYPES,
  type Occurrence,
} from '@holdfast/domain';
import { describe, expect, it } from 'vitest';
import {
  accountSettingsSchema,
  collectorRequestSchema,
  customApiEventSchema,
  customersRequestSchema,
  ordersRequestSchema,
  zeroPartySubmissionSchema,
} from '@holdfast/contracts';
import { buildOpenApiDocument } from '../../src/openapi/document.js';

const doc = buildOpenApiDocument();

/** Every route of the spec's endpoint table. */
const SPEC_ROUTES = [
  ['get', '/ingest/health'],
  ['post', '/ingest/orders'],
  ['post', '/ingest/customers'],
  ['patch', '/ingest/account'],
  ['post', '/ingest/sync'],
  ['get', '/ingest/sync/{task_id}'],
  ['get', '/ingest/batches'],
  ['post', '/webhooks/custom-api'],
  ['post', '/webhooks/zero-party'],
  ['post', '/pixel/collect'],
  ['get', '/pixel/v1/service-pixel.js'],
] as const;

/** The /v1/ surface of issue 24: every ingest route again under /v1/, the read routes, and the
 * erasure and access requests (docs/privacy.md). */
const V1_ROUTES = [
  ...SPEC_ROUTES.filter(([, p]) => p.startsWith('/ingest/')).map(
    ([m, p]) => [m, p.replace('/ingest/', '/v1/')] as const,
  ),
  ['get', '/v1/customers/{external_id}'],
  ['get', '/v1/customers'],
  ['get', '/v1/holdout'],
  ['get', '/v1/audiences/{campaign_type}'],
  ['get', '/v1/lift'],
  ['get', '/v1/reports/{name}'],
  ['post', '/v1/erasures'],
  ['get', '/v1/erasures/{erasure_id}'],
  ['post', '/v1/exports'],
  ['get', '/v1/exports/{export_id}'],
  ['get', '/v1/exports/{export_id}/download'],
  ['post', '/v1/sends'],
  ['post', '/v1/sends/{send_id}/confirm'],
  ['post', '/v1/webhooks'],
  ['get', '/v1/webhooks'],
  ['get', '/v1/webhooks/{id}'],
  ['delete', '/v1/webhooks/{id}'],
  ['post', '/v1/webhooks/{id}/rotate-secret'],
  ['get', '/v1/webhooks/{id}/deliveries'],
  ['post', '/v1/webhooks/{id}/deliveries/{delivery_id}/redeliver'],
] as const;

describe('GET /v1/openapi.json', () => {
  it('describes exactly the public routes of the spec and the /v1/ routes', () => {
    const documented = Object.entries(doc.paths).flatMap(([path, ops]) =>
      Object.keys(ops).map((m) => `${m} ${path}`),
    );
    expect(documented.sort()).toEqual([...SPEC_ROUTES, ...V1_ROUTES].map(([m, p]) => `${m} ${p}`).sort());
  });

  it('describes each /v1/ ingest alias exactly as its /ingest/ route, under its own operationId', () => {
    const paths = doc.paths as unknown as Record<string, Record<string, Record<string, unknown>>>;
    for (const [method, path] of SPEC_ROUTES.filter(([, p]) => p.startsWith('/ingest/'))) {
      const { operationId, tags: _t, ...rest } = paths[path]![method]!;
      const alias = paths[path.replace('/ingest/', '/v1/')]![method]!;
      expect(alias.operationId).toBe(`${operationId as string}V1`);
      expect({ ...alias, operationId: undefined, tags: undefined }).toEqual({
        ...rest,
        operationId: undefined,
        tags: undefined,
      });
    }
  });

  it('uses, as request bodies, the very schema objects the request validators are compiled from', () => {
    const s = doc.components.schemas;
    expect(s.OrdersRequest).toBe(ordersRequestSchema);
    expect(s.CustomersRequest).toBe(customersRequestSchema);
    expect(s.AccountSettings).toBe(accountSettingsSchema);
    expect(s.CollectorRequest).toBe(collectorRequestSchema);
    expect(s.CustomApiEvent).toBe(customApiEventSchema);
    expect(s.ZeroPartySubmission).toBe(zeroPartySubmissionSchema);
  });

  it('holds only valid JSON Schemas (2020-12) and resolvable references', () => {
    const ajv = new Ajv2020({ strict: false, validateFormats: false });
    ajv.addSchema({ $id: 'doc', components: doc.components });
    for (const name of Object.keys(doc.components.schemas)) {
      expect(() => ajv.compile({ $ref: `doc#/components/schemas/${name}` }), name).not.toThrow();
    }
    const refs = JSON.stringify(doc).match(/"#\/components\/[^"]+"/g) ?? [];
    for (const ref of new Set(refs)) {
      const [, section, name] = ref.replace(/"/g, '').split('/').slice(1);
      expect(
        (doc.components as Record<string, Record<string, unknown>>)[section!]?.[name!],
        ref,
      ).toBeDefined();
    }
  });

  it('documents the error answers of every ingest route, with the plain-text 413 of batch routes', () => {
    for (const [method, path] of SPEC_ROUTES.filter(([, p]) => p.startsWith('/ingest/'))) {
      const op = (
        doc.paths as unknown as Record<string, Record<string, { responses: Record<string, unknown> }>>
      )[path]![method]!;
      expect(Object.keys(op.responses), `${method} ${path}`).toEqual(
        expect.arrayContaining(['200', '401', '429']),
      );
    }
    expect(doc.components.responses.PayloadTooLarge.content['text/plain'].schema.const).toBe(
      'payload too large',
    );
  });
});

describe('the webhook deliveries of /v1/openapi.json (OpenAPI 3.1 webhooks)', () => {
  const at = new Date('2026-11-20T02:00:00Z');
  it('describes every event type, and what the dispatcher sends for each is valid against it', () => {
    expect(Object.keys(doc.webhooks).sort()).toEqual([...WEBHOOK_EVENT_TYPES].sort());
    const bodies: Record<string, unknown> = {
      CampaignSentEvent: {
        event: 'campaign.sent',
        data: { campaign_type: 'vip', provider: 'p', tracking_id: 'hft_1' },
      },
      CustomerChurnedEvent: occurrenceBody(
        customerChurned({
          customerId: randomUUID(),
          externalId: null,
          purchases: 3,
          previousState: 'Overdue',
          churnRisk: 0.9,
          scoredAt: at,
        }),
      ),
      RecoveryAttributedEvent: occurrenceBody(
        recoveryAttributed({
          orderId: 'A1',
          customerExternalId: 'C1',
          trackingId: 'hft_1',
          campaignType: 'win_back',
          channel: 'email',
          method: 'last_touch',
          orderDate: at,
          netRevenue: 12.5,
        }),
      ),
      LiftProvenEvent: occurrenceBody(
        liftProven({
          campaignType: 'vip',
          periodStart: new Date('2026-10-01T00:00:00Z'),
          periodEnd: new Date('2026-11-01T00:00:00Z'),
          lift: 0.2,
          ciLow: null,
          ciHigh: null,
          pValue: 0.01,
          incrementalRevenue: 800,
          billableRevenue: 800,
          settlementStatus: 'provisional',
        })!,
      ),
      SyncCompletedEvent: occurrenceBody(
        syncCompleted({
          taskId: randomUUID(),
          status: 'failed',
          ordersAdded: null,
          customersAdded: null,
          durationMs: null,
          reason: 'barrier_timeout',
          finishedAt: at,
        }),
      ),
    };
    const events = new Ajv2020({ strict: false, validateFormats: false });
    events.addSchema({ $id: 'doc', components: doc.components });
    for (const [schema, body] of Object.entries(bodies)) {
      const validate = events.compile({ $ref: `doc#/components/schemas/${schema}` });
      expect(validate(body), `${schema}: ${JSON.stringify(validate.errors)}`).toBe(true);
    }
  });
});

/** The body the dispatcher sends for a recorded occurrence (`webhookBody`), parsed. */
const occurrenceBody = (o: Occurrence): unknown => JSON.parse(webhookBody(o.type, o.data));
