import type pg from 'pg';
import { Kysely, PostgresDialect, type PostgresPool, type PostgresPoolClient } from 'kysely';

/**
 * A kysely instance over one client the caller holds (inside `withTransaction`, beside raw
 * statements, advisory locks and the checkpoint functions that take a client): its queries run on
 * that client, in its transaction. It never releases or ends the client; the caller does.
 *
 * @example
 * await withTransaction(pool, async (c) => {
 *   await kyselyOn<Database>(c).updateTable('control.sync_tasks').set({ status: 'done' }).where('id', '=', id).execute();
 * });
 */
export function kyselyOn<DB>(client: pg.ClientBase): Kysely<DB> {
  const held = { query: client.query.bind(client), release: () => {} } as unknown as PostgresPoolClient;
  const pool: PostgresPool = {
    connect: () => Promise.resolve(held),
    end: () => Promise.resolve(),
    options: {},
  };
  return new Kysely<DB>({ dialect: new PostgresDialect({ pool }) });
}
