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
  /**
   * The client-side bound of one query, ms (default `clientQueryTimeoutMs(statementTimeoutMs)`: 5 s
   * above the statement timeout; 0 = none). The statement timeout is enforced by the server, so it
   * cannot end a query whose server vanished without a reset; this one can.
   */
  readonly queryTimeoutMs?: number;
  /** Idle time before the first TCP keep-alive probe, ms (default 10,000; the OS default is ~2 h). */
  readonly keepAliveInitialDelayMs?: number;
  /** Where connection errors of idle and checked-out clients are logged (default: nowhere). */
  readonly logger?: Logger;
}

/** The defaults of `createPool` (also what HOLDFAST_PG_STATEMENT_TIMEOUT_MS and _CONNECT_TIMEOUT_MS default to). */
export const POOL_DEFAULTS = Object.freeze({
  statementTimeoutMs: 30_000,
  connectTimeoutMs: 10_000,
  keepAliveInitialDelayMs: 10_000,
});

/** How far the client-side query timeout lies above the statement timeout (the server's answer wins). */
export const QUERY_TIMEOUT_MARGIN_MS = 5_000;

/**
 * The client-side query timeout that goes with a statement timeout: `QUERY_TIMEOUT_MARGIN_MS` above
 * it, so a live server always answers first (SQLSTATE 57014, and the connection stays usable), and
 * only a query whose server is gone (no answer, no reset) meets the client's timer. None (0) when
 * there is no statement timeout: such a pool (the CLI's migrations and rebuilds) runs statements
 * of any length.
 *
 * @example
 * clientQueryTimeoutMs(30_000); // 35_000
 * clientQueryTimeoutMs(0); // 0
 */
export function clientQueryTimeoutMs(statementTimeoutMs: number): number {
  return statementTimeoutMs > 0 ? statementTimeoutMs + QUERY_TIMEOUT_MARGIN_MS : 0;
}

/**
 * A pg pool with a name in pg_stat_activity (slow queries trace back to their service), statement,
 * client-side query and connection timeouts, TCP keep-alive after 10 s idle, and an `'error'`
 * listener on the pool and on every client.
 *
 * A database host that vanishes without a reset (a crashed VM, a dropped route) answers nothing: the
 * server's statement_timeout cannot fire, and the OS notices only after its keep-alive (~2 h by
 * default). The client-side query timeout fails such a query ("Query read timeout", retriable) and a
 * client released with its query still unanswered is ended, never handed out again; the keep-alive
 * probes end idle connections to the vanished host within seconds.
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
  const queryTimeout = opts.queryTimeoutMs ?? clientQueryTimeoutMs(statementTimeout);
  const pool = new pg.Pool({
    connectionString: databaseUrl,
    application_name: applicationName,
    max,
    connectionTimeoutMillis: opts.connectTimeoutMs ?? POOL_DEFAULTS.connectTimeoutMs,
    keepAlive: true,
    keepAliveInitialDelayMillis: opts.keepAliveInitialDelayMs ?? POOL_DEFAULTS.keepAliveInitialDelayMs,
    ...(statementTimeout > 0 ? { statement_timeout: statementTimeout } : {}),
    ...(queryTimeout > 0 ? { query_timeout: queryTimeout } : {}),
  });
  // A query that met the client-side timeout is still the connection's active query (pg cannot take
  // it back): whoever releases such a client without an error (kysely, `withTransaction`) would hand
  // a wedged connection to the next caller. Ending it here, before the pool decides, removes it.
  pool.on('release', (err, client) => {
    if (!err && (client as ClientWithActiveQuery)._activeQuery) void client.end().catch(() => {});
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

/** pg keeps a client's query in flight here (null when none; its public getter is deprecated). */
type ClientWithActiveQuery = pg.PoolClient & { readonly _activeQuery?: unknown };

/** A kysely instance over a pool. */
export function createDb(pool: pg.Pool): Kysely<Database> {
  return new Kysely<Database>({ dialect: new PostgresDialect({ pool }) });
}

export type { Pool, PoolClient } from 'pg';
