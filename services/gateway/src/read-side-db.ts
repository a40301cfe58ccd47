import { createDb, type Pool } from '@holdfast/postgres';
import type { ReadModelTables } from '@holdfast/read-models';
import type { Kysely } from 'kysely';

const UNDEFINED_TABLE = '42P01';
const UNDEFINED_SCHEMA = '3F000';

/**
 * The read models of `schema` for kysely: the projector's tables, typed by @holdfast/read-models'
 * rows. The gateway only reads them.
 */
export function readModelsDb(pool: Pool, schema: string): Kysely<ReadModelTables> {
  return (createDb(pool) as unknown as Kysely<ReadModelTables>).withSchema(schema);
}

/**
 * `read`'s answer, or `nothing` while the projector (or `holdfast migrate`) has not yet created the
 * read-model schema or table: the gateway may start first, and "nothing yet" is then the truth.
 */
export async function orNothingYet<T>(read: () => Promise<T>, nothing: T): Promise<T> {
  try {
    return await read();
  } catch (err) {
    const code = (err as { code?: string }).code;
    if (code === UNDEFINED_TABLE || code === UNDEFINED_SCHEMA) return nothing;
    throw err;
  }
}
