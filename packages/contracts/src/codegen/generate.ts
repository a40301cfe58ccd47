// npm run gen:types — rewrites src/generated/events.ts from schemas/.
import { writeFileSync } from 'node:fs';
import { fileURLToPath } from 'node:url';
import { renderEventTypes } from './avro-to-ts.js';
import { loadEventSchemas, loadTopicMap } from './load-schemas.js';

const target = fileURLToPath(new URL('../generated/events.ts', import.meta.url));
writeFileSync(target, renderEventTypes(loadEventSchemas(), loadTopicMap()));
console.log(`wrote ${target}`);
