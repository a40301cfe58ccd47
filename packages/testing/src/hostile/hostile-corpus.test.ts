import { describe, expect, it } from 'vitest';
import { HOSTILE_CORPUS, INPUT_CLASSES, type Route } from './hostile-corpus.js';

// Every route of the spec (and unknown paths): the corpus tries each of them with every class.
const ROUTES: readonly Route[] = [
  'POST /ingest/orders',
  'POST /ingest/customers',
  'PATCH /ingest/account',
  'GET /ingest/health',
  'GET /ingest/batches',
  'POST /ingest/sync',
  'GET /ingest/sync/{task_id}',
  'POST /webhooks/custom-api',
  'POST /webhooks/zero-party',
  'POST /pixel/collect',
  'GET /pixel/v1/service-pixel.js',
  'GET /v1/openapi.json',
  'OTHER',
];

describe('the hostile-input corpus', () => {
  it('given the routes of the spec and issue 14 list of input classes, then every route is tried with every class', () => {
    const missing = ROUTES.flatMap((r) =>
      INPUT_CLASSES.filter((k) => !HOSTILE_CORPUS.some((c) => c.route === r && c.klass === k)).map(
        (k) => `${r} ${k}`,
      ),
    );
    expect(missing).toEqual([]);
  });

  it('given the corpus, then names are unique and every class is one of the list', () => {
    const names = HOSTILE_CORPUS.map((c) => c.name);
    expect(new Set(names).size).toBe(names.length);
    expect(HOSTILE_CORPUS.filter((c) => !(INPUT_CLASSES as readonly string[]).includes(c.klass))).toEqual([]);
  });
});
