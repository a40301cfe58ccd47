// Test support: checks an answer against its response schema in /v1/openapi.json.
import { Ajv2020 } from 'ajv/dist/2020.js';
import formatsModule from 'ajv-formats';
import { buildOpenApiDocument } from '@holdfast/gateway';

const addFormats = formatsModule.default;
const ajv = new Ajv2020({ strict: false, allErrors: true });
addFormats(ajv, ['uuid', 'date-time']);
ajv.addSchema({
  $id: 'doc',
  components: JSON.parse(JSON.stringify(buildOpenApiDocument().components)) as object,
});

/**
 * The schema errors of `body` against `#/components/schemas/<name>` of the served document (empty
 * when it conforms): `expect(schemaErrors('Erasure', r.json)).toEqual([])`.
 */
export function schemaErrors(name: string, body: unknown): string[] {
  const validate = ajv.getSchema(`doc#/components/schemas/${name}`);
  if (!validate) throw new Error(`no schema ${name} in the OpenAPI document`);
  return validate(body) ? [] : (validate.errors ?? []).map((e) => `${e.instancePath} ${e.message ?? ''}`);
}
