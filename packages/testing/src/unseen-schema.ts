import { loadEventSchemas, type EventName } from '@holdfast/contracts';

/**
 * Registers a compatible variant of `name`'s schema (one extra optional string field, last) under a
 * test subject, so records written with it carry a schema id that a running codec has not cached:
 * decoding them makes the codec ask the registry, which is what registry-outage tests need.
 * Returns the new schema id.
 */
export async function registerUnseenSchema(
  registryUrl: string,
  name: EventName,
  tag: string,
): Promise<number> {
  const schema = loadEventSchemas().get(name) as { fields: unknown[] };
  const variant = {
    ...schema,
    fields: [
      ...schema.fields,
      { name: `x_test_${tag.replace(/\W/g, '_')}`, type: ['null', 'string'], default: null },
    ],
  };
  const res = await fetch(`${registryUrl}/subjects/${encodeURIComponent(`test-${tag}-${name}`)}/versions`, {
    method: 'POST',
    headers: { 'content-type': 'application/vnd.schemaregistry.v1+json' },
    body: JSON.stringify({ schema: JSON.stringify(variant) }),
  });
  if (!res.ok) throw new Error(`registering the test schema failed: ${res.status} ${await res.text()}`);
  return ((await res.json()) as { id: number }).id;
}

/**
 * Re-labels a record encoded with the current schema as written with the variant of
 * `registerUnseenSchema`: same body plus the extra field's value null (Avro: union branch 0, one zero
 * byte), under `schemaId`.
 */
export function withUnseenSchema(encoded: Buffer, schemaId: number): Buffer {
  const out = Buffer.alloc(encoded.length + 1);
  encoded.copy(out);
  out.writeInt32BE(schemaId, 1);
  out[out.length - 1] = 0;
  return out;
}
