/**
 * Renders TypeScript interfaces from Avro record schemas, so the wire contract in `schemas/` and the
 * types the code uses cannot drift: `events.gen.test.ts` fails when the committed file is stale.
 */
type AvroSchema = string | AvroSchema[] | { type: string; [k: string]: unknown };

interface AvroField {
  name: string;
  type: AvroSchema;
  doc?: string;
}

interface Ctx {
  declared: Map<string, string>;
}

function tsType(schema: AvroSchema, ctx: Ctx): string {
  if (typeof schema === 'string') {
    switch (schema) {
      case 'null':
        return 'null';
      case 'string':
        return 'string';
      case 'boolean':
        return 'boolean';
      case 'int':
      case 'long':
      case 'float':
      case 'double':
        return 'number';
      case 'bytes':
        return 'Buffer';
      default:
        return schema.split('.').pop() ?? schema;
    }
  }
  if (Array.isArray(schema)) return schema.map((s) => tsType(s, ctx)).join(' | ');
  switch (schema.type) {
    case 'record':
      return declareRecord(schema as unknown as { name: string; doc?: string; fields: AvroField[] }, ctx);
    case 'enum': {
      const name = schema.name as string;
      const symbols = schema.symbols as string[];
      ctx.declared.set(name, `export type ${name} = ${symbols.map((s) => `'${s}'`).join(' | ')};\n`);
      return name;
    }
    case 'array':
      return `${wrap(tsType(schema.items as AvroSchema, ctx))}[]`;
    case 'map':
      return `Record<string, ${tsType(schema.values as AvroSchema, ctx)}>`;
    default:
      return tsType(schema.type, ctx);
  }
}

function wrap(t: string): string {
  return t.includes('|') ? `(${t})` : t;
}

function declareRecord(rec: { name: string; doc?: string; fields: AvroField[] }, ctx: Ctx): string {
  if (ctx.declared.has(rec.name)) return rec.name;
  ctx.declared.set(rec.name, ''); // reserve: keeps declaration order stable and stops recursion
  const lines = rec.fields.map((f) => {
    const doc = f.doc ? `  /** ${f.doc} */\n` : '';
    return `${doc}  readonly ${f.name}: ${tsType(f.type, ctx)};`;
  });
  const doc = rec.doc ? `/** ${rec.doc} */\n` : '';
  ctx.declared.set(rec.name, `${doc}export interface ${rec.name} {\n${lines.join('\n')}\n}\n`);
  return rec.name;
}

/** Renders the module for the given schemas (record name → schema) and topic map. */
export function renderEventTypes(
  schemas: ReadonlyMap<string, unknown>,
  topics: Record<string, string[]>,
): string {
  const ctx: Ctx = { declared: new Map() };
  const names = [...schemas.keys()].sort();
  for (const name of names) tsType(schemas.get(name) as AvroSchema, ctx);
  const out = ['// Generated from schemas/events/*.avsc by `npm run gen:types`. Do not edit.', ''];
  for (const decl of ctx.declared.values()) out.push(decl);
  out.push('/** Every record type, by name: the discriminant of `AnyEvent`. */');
  out.push(`export interface EventTypes {\n${names.map((n) => `  ${n}: ${n};`).join('\n')}\n}\n`);
  out.push('export type EventName = keyof EventTypes;\n');
  out.push('/** A decoded record: `{ type, value }`, narrowed by `type`. */');
  out.push(
    'export type AnyEvent = { [K in EventName]: { readonly type: K; readonly value: EventTypes[K] } }[EventName];\n',
  );
  const topicEntries = Object.entries(topics).filter(([k]) => !k.startsWith('$'));
  out.push('/** The records each topic carries (schemas/topics.json). */');
  out.push(
    `export const TOPIC_RECORDS = {\n${topicEntries
      .map(([t, recs]) => `  '${t}': [${recs.map((r) => `'${r}'`).join(', ')}],`)
      .join('\n')}\n} as const satisfies Record<string, readonly EventName[]>;\n`,
  );
  out.push('export type TopicName = keyof typeof TOPIC_RECORDS;\n');
  out.push('/** The events a topic carries. */');
  out.push(
    'export type EventOf<T extends TopicName> = Extract<AnyEvent, { type: (typeof TOPIC_RECORDS)[T][number] }>;\n',
  );
  return out.join('\n');
}
