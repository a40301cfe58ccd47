import pg from 'pg';
import { Kysely, PostgresDialect } from 'kysely';
import type { Database } from './schema.js';

// int8 (counts, offsets) as JS numbers: our counts stay far below 2^53, and strings leak into JSON.
pg.types.setTypeParser(pg.types.builtins.INT8, (v) => Number(v));
// numeric (money) as numbers too: amounts are major units with cents.
pg.types.setTypeParser(pg.types.builtins.NUMERIC, (v) => Number(v));

/** A pg pool with a name in pg_stat_activity, so slow queries can be traced to their service. */
export function createPool(databaseUrl: string, applicationName: string, max = 10): pg.Pool {
  return new pg.Pool({ connectionString: databaseUrl, application_name: applicationName, max });
}

/** A kysely instance over a pool. */
export function createDb(pool: pg.Pool): Kysely<Database> {
  return new Kysely<Database>({ dialect: new PostgresDialect({ pool }) });
}

export type { Pool, PoolClient } from 'pg';
