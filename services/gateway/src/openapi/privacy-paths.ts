/** The /v1/erasures and /v1/exports operations of /v1/openapi.json (docs/privacy.md). */
import { jsonBody, ok, paramRef, responseRef, schemaRef } from './ingest-paths.js';

const params = [paramRef('ServiceAccountId'), paramRef('RequestId')];
const idempotency = {
  name: 'Idempotency-Key',
  in: 'header',
  required: false,
  schema: { type: 'string', maxLength: 200 },
  description: 'The same key (per account) answers the request first made with it.',
};
const pathId = (name: string, description: string) => ({
  name,
  in: 'path',
  required: true,
  schema: { type: 'string' },
  description,
});
const errors = {
  '401': responseRef('Unauthorized'),
  '404': responseRef('NotFound'),
  '429': responseRef('TooManyRequests'),
  '500': responseRef('InternalError'),
};
const accepted = (name: string, description: string) => ({
  description,
  content: { 'application/json': { schema: schemaRef(name) } },
});
const op = (summary: string, description: string, extra: Record<string, unknown>) => ({
  summary,
  description,
  tags: ['privacy'],
  security: [{ ingestKey: [] }],
  parameters: params,
  ...extra,
});

export const privacyPaths = {
  '/v1/erasures': {
    post: op(
      'Erase a person',
      "Names a person by one or more of external_id, email, phone (normalised like ingest: email lower-cased, phone E.164); beside them, not a spec field, anonymous_id names a browser (its pixel events lose raw_props, search and page_title, also when it was never tied to a person). Only the identifiers' blind indexes are stored. The projector process destroys the keys of every record of the person and blanks the read models; with suppress=true later ingest naming one of the identifiers is dropped (code suppressed_identity), and so are later pixel events of a named browser (the collector still answers 204; code suppressed_browser). Idempotent: the same identifiers (and suppress) while queued, running or done less than a day ago, or the same Idempotency-Key, answer the same erasure.",
      {
        operationId: 'postErasure',
        parameters: [...params, idempotency],
        requestBody: jsonBody('ErasureRequest'),
        responses: {
          '202': accepted('ErasureQueued', 'Queued (or the same erasure again).'),
          '422': responseRef('ValidationFailed'),
          ...errors,
        },
      },
    ),
  },
  '/v1/erasures/{erasure_id}': {
    get: op(
      'Status of an erasure',
      "Only this account's erasures are visible: another account's or an unknown id gives 404.",
      {
        operationId: 'getErasure',
        parameters: [...params, pathId('erasure_id', 'Erasure id.')],
        responses: { '200': ok('Erasure', 'The erasure.'), ...errors },
      },
    ),
  },
  '/v1/exports': {
    post: op(
      "Export a person's data (access request)",
      'Same identifiers as an erasure. The document holds everything Holdfast keeps about the person (profile, orders, events, submissions, pixel activity, campaign sends, scores, campaign decisions, attributions); it is kept sealed for 7 days, then deleted.',
      {
        operationId: 'postExport',
        parameters: [...params, idempotency],
        requestBody: jsonBody('ExportRequest'),
        responses: {
          '202': accepted('ExportQueued', 'Queued (or the same export again).'),
          '422': responseRef('ValidationFailed'),
          ...errors,
        },
      },
    ),
  },
  '/v1/exports/{export_id}': {
    get: op('Status of an export', 'download_url once done; 404 once expired (7 days).', {
      operationId: 'getExport',
      parameters: [...params, pathId('export_id', 'Export id.')],
      responses: { '200': ok('Export', 'The export.'), ...errors },
    }),
  },
  '/v1/exports/{export_id}/download': {
    get: op('The JSON document of a done export', '404 unless done and not expired.', {
      operationId: 'downloadExport',
      parameters: [...params, pathId('export_id', 'Export id.')],
      responses: { '200': ok('ExportDocument', 'The document.'), ...errors },
    }),
  },
};
