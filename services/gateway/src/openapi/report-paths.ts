/** GET /v1/reports/{name} in /v1/openapi.json (docs/read-api.md, "Reports"). */
import { REPORT_NAMES } from '@holdfast/dashboards';
import { ok, paramRef, responseRef } from './ingest-paths.js';

export const reportPaths = {
  '/v1/reports/{name}': {
    get: {
      operationId: 'getReport',
      summary: 'An aggregate report of the account (the console dashboards)',
      description:
        "One report of the key's account, aggregated in the database (counts, sums and bins; never a customer's row): lifecycle-mix, churn-risk, cohort-retention, value-distribution, campaign-funnel, lift, model-fit. Money in the account's reporting currency. An unknown name answers 404.",
      tags: ['read'],
      security: [{ readKey: [] }, { ingestKey: [] }],
      parameters: [
        { name: 'name', in: 'path', required: true, schema: { enum: [...REPORT_NAMES] } },
        paramRef('IfNoneMatch'),
      ],
      responses: {
        '200': {
          ...ok('Report', 'The report.'),
          headers: {
            ETag: {
              schema: { type: 'string' },
              description: 'Send it back in If-None-Match: 304 while unchanged.',
            },
          },
        },
        '304': { description: 'Not modified (If-None-Match named the current ETag).' },
        '401': responseRef('Unauthorized'),
        '403': responseRef('IngestKeyCannotRead'),
        '404': {
          description: 'Unknown report name.',
          content: { 'application/json': { schema: { $ref: '#/components/schemas/DetailBody' } } },
        },
        '429': responseRef('TooManyRequests'),
        '500': responseRef('InternalError'),
      },
    },
  },
};
