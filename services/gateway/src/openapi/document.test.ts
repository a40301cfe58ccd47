import { Ajv2020 } from 'ajv/dist/2020.js';
import { describe, expect, it } from 'vitest';
import {
  accountSettingsSchema,
  collectorRequestSchema,
  customApiEventSchema,
  customersRequestSchema,
  ordersRequestSchema,
  zeroPartySubmissionSchema,
} from '@holdfast/contracts';
import { buildOpenApiDocument } from './document.js';

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

/** Routes added beside the spec's (erasure and access requests, docs/privacy.md). */
const ADDED_ROUTES = [
  ['post', '/v1/erasures'],
  ['get', '/v1/erasures/{erasure_id}'],
  ['post', '/v1/exports'],
  ['get', '/v1/exports/{export_id}'],
  ['get', '/v1/exports/{export_id}/download'],
] as const;

describe('GET /v1/openapi.json', () => {
  it('describes exactly the public routes of the spec, and the added privacy routes', () => {
    const documented = Object.entries(doc.paths).flatMap(([path, ops]) =>
      Object.keys(ops).map((m) => `${m} ${path}`),
    );
    expect(documented.sort()).toEqual([...SPEC_ROUTES, ...ADDED_ROUTES].map(([m, p]) => `${m} ${p}`).sort());
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
