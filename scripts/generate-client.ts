// npm run gen:client: regenerates packages/client/src/openapi.ts from the OpenAPI document.
import { writeFileSync } from 'node:fs';
import { CLIENT_TYPES_FILE, generateClientTypes } from './client-types.js';

writeFileSync(CLIENT_TYPES_FILE, await generateClientTypes());
console.log(`wrote ${CLIENT_TYPES_FILE}`);
