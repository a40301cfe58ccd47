import { rawQuery, type Pool } from '@holdfast/postgres';
import { READ_MODEL_TABLES } from '@holdfast/read-models';

/** Row count and md5 of every row's text, in a total order: equal digests = identical tables. */
export interface TableDigest {
  readonly rows: number;
  readonly md5: string | null;
}

/**
 * Digests every read-model table of `schema` (or those named): md5 of the rows' text forms, ordered by
 * that text, so two tables with the same rows digest equally however they were written. What the
 * replay-equality test compares, and what an operator can compare between a live and a rebuilt schema.
 *
 * @example
 * const before = await readModelDigest(pool, 'read_models');
 */
export async function readModelDigest(
  pool: Pool,
  schema: string,
  tables: readonly string[] = READ_MODEL_TABLES,
): Promise<Record<string, TableDigest>> {
  const result: Record<string, TableDigest> = {};
  for (const table of tables) {
    const { rows } = await rawQuery<{ rows: number; md5: string | null }>(
      pool,
      'table-digest.digest',
      `select count(*)::int as rows, md5(string_agg(t::text, E'\\n' order by t::text)) as md5
       from "${schema}"."${table}" t`,
    );
    result[table] = rows[0]!;
  }
  return result;
}
