import { readdirSync, readFileSync } from 'node:fs';
import { fileURLToPath } from 'node:url';

/** The repository's `schemas/` folder (same depth from src/ and dist/). */
export const SCHEMAS_DIR = fileURLToPath(new URL('../../../../schemas/', import.meta.url));

/** Reads every event schema in `schemas/events`, keyed by record name. */
export function loadEventSchemas(dir = SCHEMAS_DIR): Map<string, unknown> {
  const out = new Map<string, unknown>();
  for (const file of readdirSync(`${dir}events`).sort()) {
    if (!file.endsWith('.avsc')) continue;
    const schema = JSON.parse(readFileSync(`${dir}events/${file}`, 'utf8')) as { name: string };
    out.set(schema.name, schema);
  }
  return out;
}

export function loadTopicMap(dir = SCHEMAS_DIR): Record<string, string[]> {
  return JSON.parse(readFileSync(`${dir}topics.json`, 'utf8')) as Record<string, string[]>;
}
