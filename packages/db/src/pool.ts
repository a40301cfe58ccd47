import pg from 'pg';
import { Kysely, PostgresDialect } from 'kysely';
import { describeFailure, type Logger } from '@holdfast/platform';
import type { Database } from './schema.js';

// int8 (counts, offsets) as JS numbers: our counts stay far below 2^53, and strings leak into JSON.
pg.types.setTypeParser(pg.types.builtins.INT8, (v) => Number(v));
// numeric (money) as numbers too: amounts are major units with cents.
pg.types.setTypeParser(pg.types.builtins.NUMERIC, (v) => Number(v));

/** Timeouts and logging of a pool (every field optional). */
export interface PoolOptions {
  /**
   * `statement_timeout` of every connection, ms (default 30,000; 0 = none). A statement stuck behind
   * a lock or a vanished server then fails with SQLSTATE 57014, which callers retry, instead of
   * holding its connection (and the work behind it) forever.
   */
  readonly statementTimeoutMs?: number;
  /** How long opening a connection may take, ms (default 10,000). */
  readonly connectTimeoutMs?: number;
  /** Where connection errors of idle and checked-out clients are logged (default: nowhere). */
  readonly logger?: Logger;
}

/** The defaults of `createPool` (also what HOLDFAST_PG_STATEMENT_TIMEOUT_MS and _CONNECT_TIMEOUT_MS default to). */
export const POOL_DEFAULTS = Object.freeze({ statementTimeoutMs: 30_000, connectTimeoutMs: 10_000 });

/**
 * A pg pool with a name in pg_stat_activity (slow queries trace back to their service), statement and
 * connection timeouts, TCP keep-alive, and an `'error'` listener on the pool and on every client.
 *
 * Without those listeners a connection that dies (a server restart, a failover,
 * `pg_terminate_backend`) emits an unhandled `'error'` event and kills the process. With them, the
 * query in flight fails (retriable: SQLSTATE 57P01 or "Connection terminated"), the dead client is
 * discarded when released, and the next query opens a fresh connection.
 *
 * @example
 * const pool = createPool(config.databaseUrl, 'holdfast-projector', 4, {
 *   statementTimeoutMs: config.pgStatementTimeoutMs, logger,
 * });
 */
export function createPool(
  databaseUrl: string,
  applicationName: string,
  max = 10,
  opts: PoolOptions = {},
): pg.Pool {
  const statementTimeout = opts.statementTimeoutMs ?? POOL_DEFAULTS.statementTimeoutMs;
  const pool = new pg.Pool({
    connectionString: databaseUrl,
    application_name: applicationName,
    max,
    connectionTimeoutMillis: opts.connectTimeoutMs ?? POOL_DEFAULTS.connectTimeoutMs,
    keepAlive: true,
    ...(statementTimeout > 0 ? { statement_timeout: statementTimeout } : {}),
  });
  // A checked-out client's error reaches only the client; an idle one's reaches the pool as well
  // (which then drops the client). Logged once, from the client's listener.
  pool.on('connect', (client) =>
    client.on('error', (err) =>
      opts.logger?.warn('pg_connection_error', { pool: applicationName, ...describeFailure(err) }),
    ),
  );
  pool.on('error', () => {});
  return pool;
}

/** A kysely instance over a pool. */
export function createDb(pool: pg.Pool): Kysely<Database> {
  return new Kysely<Database>({ dialect: new PostgresDialect({ pool }) });
}

export type { Pool, PoolClient } from 'pg';
