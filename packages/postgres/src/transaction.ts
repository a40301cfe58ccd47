import type pg from 'pg';

/** How a transaction begins (every field optional: a plain `begin`). */
export interface TransactionOptions {
  /** `begin isolation level …`. */
  readonly isolation?: 'read committed' | 'repeatable read' | 'serializable';
  /** `begin … read only`. */
  readonly readOnly?: boolean;
  /**
   * `set local name = value` for the transaction, sent with the `begin` in one round trip (the
   * projector's chunk turns off hash and merge joins and synchronous commit this way). Names and
   * values are written into the SQL as they are: constants only, never input.
   */
  readonly settings?: Readonly<Record<string, string>>;
}

/**
 * The statement that begins a transaction with `opts`: `begin`, its isolation and access mode, then
 * one `set local` per setting, joined with `;` so it costs one round trip.
 *
 * @example
 * beginStatement({ settings: { enable_hashjoin: 'off' } }); // 'begin; set local enable_hashjoin = off'
 */
export function beginStatement(opts: TransactionOptions = {}): string {
  let begin = 'begin';
  if (opts.isolation) begin += ` isolation level ${opts.isolation}`;
  if (opts.readOnly) begin += ' read only';
  const sets = Object.entries(opts.settings ?? {}).map(([name, value]) => `set local ${name} = ${value}`);
  return [begin, ...sets].join('; ');
}

/**
 * Runs `work` in a transaction on a client the caller holds: commits when `work` resolves, rolls back
 * (and rethrows) when it throws. A failed rollback is ignored: the error of `work` is the one to see,
 * and a client whose connection broke is discarded when released. The caller releases the client.
 *
 * @example
 * await inTransaction(client, async () => { await client.query('delete …'); await client.query('insert …'); });
 */
export async function inTransaction<T>(
  client: pg.ClientBase,
  work: () => Promise<T>,
  opts: TransactionOptions = {},
): Promise<T> {
  await client.query(beginStatement(opts));
  try {
    const result = await work();
    await client.query('commit');
    return result;
  } catch (err) {
    await client.query('rollback').catch(() => {});
    throw err;
  }
}

/**
 * The one way to run a transaction on a pool: checks out a client, runs `work` on it in a
 * transaction (`inTransaction`: commit on success, rollback and rethrow on error) and releases it.
 * A `work` that returns early without writing commits an empty transaction, which is the same as a
 * rollback; its `pg_advisory_xact_lock`s are released either way.
 *
 * @example
 * const id = await withTransaction(pool, async (c) => {
 *   await c.query(`select pg_advisory_xact_lock(42)`);
 *   return (await c.query<{ id: string }>(`insert into … returning id`)).rows[0]!.id;
 * });
 */
export async function withTransaction<T>(
  pool: pg.Pool,
  work: (client: pg.PoolClient) => Promise<T>,
  opts: TransactionOptions = {},
): Promise<T> {
  const client = await pool.connect();
  try {
    return await inTransaction(client, () => work(client), opts);
  } finally {
    client.release();
  }
}
