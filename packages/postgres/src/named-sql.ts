import type pg from 'pg';
import { sql, type RawBuilder } from 'kysely';

/**
 * A raw statement's name: lower-case words joined by `.`, `-`, `_` or `:`, by convention
 * `<module>.<what>` (`write-scores.swap-partition`). Checked because it is written into the SQL: a
 * name can never close the comment it sits in.
 */
const NAME = /^[a-z0-9]+(?:[-_.:][a-z0-9]+)*$/;

/** Anything with pg's `query(text, values)`: a pool, a pool client, a client. */
export interface RawQueryable {
  query<R extends pg.QueryResultRow = pg.QueryResultRow>(
    text: string,
    values?: unknown[],
  ): Promise<pg.QueryResult<R>>;
}

/**
 * `text` with its name in front as a comment (`/* name *\/ text`), so that pg_stat_statements, the
 * server's log and pg_stat_activity show which statement it is. Not pg's `name` field: that makes a
 * prepared statement, which fails once the same name comes with another text.
 *
 * @example
 * namedSql('write-scores.copy-scores', 'copy t from stdin'); // '/* write-scores.copy-scores *\/ copy t from stdin'
 */
export function namedSql(name: string, text: string): string {
  if (!NAME.test(name)) throw new TypeError(`"${name}" is not a statement name (like module.what)`);
  return `/* ${name} */ ${text}`;
}

/**
 * The one way to run raw SQL (what kysely cannot express, or a statement whose speed depends on its
 * exact text): `client.query` of the named text.
 *
 * @example
 * await rawQuery(client, 'write-scores.lock-account', 'select pg_advisory_lock($1)', [key]);
 */
export function rawQuery<R extends pg.QueryResultRow = pg.QueryResultRow>(
  client: RawQueryable,
  name: string,
  text: string,
  params?: readonly unknown[],
): Promise<pg.QueryResult<R>> {
  return client.query<R>(namedSql(name, text), params as unknown[] | undefined);
}

/**
 * A kysely `sql` template with its name in front as a comment: raw SQL run through kysely
 * (`namedRaw('lift-reports.revenue', sql\`…\`).execute(db)`).
 */
export function namedRaw<R>(name: string, query: RawBuilder<R>): RawBuilder<R> {
  return sql<R>`${sql.raw(namedSql(name, ''))}${query}`;
}
