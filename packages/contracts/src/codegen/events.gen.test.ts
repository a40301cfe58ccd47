import { readFileSync } from 'node:fs';
import { fileURLToPath } from 'node:url';
import { describe, expect, it } from 'vitest';
import { renderEventTypes } from './avro-to-ts.js';
import { loadEventSchemas, loadTopicMap } from './load-schemas.js';

describe('generated event types', () => {
  it('match schemas/ exactly (run `npm run gen:types` after changing a schema)', () => {
    const committed = readFileSync(fileURLToPath(new URL('../generated/events.ts', import.meta.url)), 'utf8');
    expect(committed).toBe(renderEventTypes(loadEventSchemas(), loadTopicMap()));
  });

  it('every record named in topics.json has a schema', () => {
    const schemas = loadEventSchemas();
    for (const [topic, records] of Object.entries(loadTopicMap())) {
      if (topic.startsWith('$')) continue;
      for (const r of records) expect(schemas.has(r), `${topic}: ${r}`).toBe(true);
    }
  });
});
