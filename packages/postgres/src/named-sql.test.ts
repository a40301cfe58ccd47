import { describe, expect, it } from 'vitest';
import {
  DummyDriver,
  Kysely,
  PostgresAdapter,
  PostgresIntrospector,
  PostgresQueryCompiler,
  sql,
} from 'kysely';
import { namedRaw, namedSql, rawQuery, type RawQueryable } from './named-sql.js';

const db = new Kysely<Record<string, never>>({
  dialect: {
    createAdapter: () => new PostgresAdapter(),
    createDriver: () => new DummyDriver(),
    createIntrospector: (k) => new PostgresIntrospector(k),
    createQueryCompiler: () => new PostgresQueryCompiler(),
  },
});

describe('namedSql', () => {
  it('given a name and a text, then the name as a comment in front', () => {
    expect(namedSql('write-scores.copy-scores', 'copy t from stdin')).toBe(
      '/* write-scores.copy-scores */ copy t from stdin',
    );
  });

  it.each(['', 'Upper.case', 'a */ drop table x; /*', 'a..b', 'space here', '.a'])(
    'given the name %j, then it is refused (it could not close the comment, nor be searched for)',
    (name) => {
      expect(() => namedSql(name, 'select 1')).toThrow(TypeError);
    },
  );
});

describe('rawQuery', () => {
  it('given a client, then it sends the named text and the parameters', async () => {
    const sent: unknown[] = [];
    const client: RawQueryable = {
      query: (text, values) => {
        sent.push(text, values);
        return Promise.resolve({ rows: [], rowCount: 0, command: 'SELECT', oid: 0, fields: [] });
      },
    };
    await rawQuery(client, 'sync.lock-run', 'select pg_advisory_xact_lock($1)', [7]);
    expect(sent).toEqual(['/* sync.lock-run */ select pg_advisory_xact_lock($1)', [7]]);
  });
});

describe('namedRaw', () => {
  it('given a kysely sql template, then the name in front and the parameters kept', () => {
    const q = namedRaw('lift.revenue', sql`select ${1}::int as n`).compile(db);
    expect(q.sql).toBe('/* lift.revenue */ select $1::int as n');
    expect(q.parameters).toEqual([1]);
  });
});
