// The typed client (packages/client) cannot drift from the server: its types are what
// openapi-typescript generates from the document the gateway serves, byte for byte.
import { readFileSync } from 'node:fs';
import { describe, expect, it } from 'vitest';
import { CLIENT_TYPES_FILE, generateClientTypes } from '../scripts/client-types.js';

describe('packages/client/src/openapi.ts', () => {
  it('equals the types generated from /v1/openapi.json now (npm run gen:client regenerates it)', async () => {
    expect(readFileSync(CLIENT_TYPES_FILE, 'utf8')).toBe(await generateClientTypes());
  }, 20_000);
});
