// `npm start` once failed with "tuple concurrently updated" as the recompute started: its analytics
// and campaigns migrations GRANT on schema `analytics` under kysely's migration lock only, while the
// gateway's (or the dispatcher's) applyPrivileges re-grants the same schema under the privileges lock.
// Two GRANTs on one catalog row at once: the second fails when the first commits. Every migration now
// takes the privileges lock first (migrateSchema); this test holds a migration's GRANT open and runs
// applyPrivileges beside it, which must wait for it instead of failing.
import type { Kysely } from 'kysely';
import { sql } from 'kysely';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import {
  applyPrivileges,
  createDb,
  createPool,
  migrateSchema,
  SERVICE_ROLES,
  type Pool,
} from '@holdfast/postgres';
import { createTestEnv, type TestEnv } from '@holdfast/testing';

let t: TestEnv;
let other: Pool;

beforeAll(async () => {
  t = await createTestEnv('grants-race');
  // The schema and a table exist (committed) before the race, as once the recompute migrated once
  // (applyPrivileges grants on `analytics` only when it holds a table).
  await t.pool.query('create schema if not exists analytics; create table analytics.race_probe (id int)');
  other = createPool(t.databaseUrl, 'test-grants-race-other', 2);
});

afterAll(async () => {
  await other?.end();
  await t?.close();
});

/** Resolves once a backend of this database runs `pg_sleep` (the migration below holds its GRANT). */
async function migrationHoldsItsGrant(): Promise<void> {
  const until = Date.now() + 20_000;
  while (Date.now() < until) {
    const { rows } = await other.query<{ n: number }>(
      `select count(*)::int as n from pg_stat_activity
        where datname = current_database() and query like '%grants-race.hold%' and pid <> pg_backend_pid()`,
    );
    if (rows[0]!.n > 0) return;
    await new Promise((r) => setTimeout(r, 20));
  }
  throw new Error('the migration never reached its pg_sleep');
}

describe('a migration that grants, while another service re-applies the grants', () => {
  it('given a migration holding a GRANT on schema analytics, when applyPrivileges runs beside it, then both succeed', async () => {
    const migrating = migrateSchema(t.db as Kysely<unknown>, {
      history: `holdfast_test_grants_race`,
      migrations: {
        '2026-01-01T00-00-grant-and-hold': {
          up: async (db) => {
            await sql.raw(`grant usage on schema analytics to ${SERVICE_ROLES.analyst}`).execute(db);
            // Still in the migrator's transaction: the catalog row stays locked while this sleeps.
            await sql.raw(`select /* grants-race.hold */ pg_sleep(1.5)`).execute(db);
          },
        },
      },
    });
    await migrationHoldsItsGrant();
    const reapplied = applyPrivileges(createDb(other) as Kysely<unknown>);
    const [migrated, reappliedToo] = await Promise.allSettled([migrating, reapplied]);
    expect(migrated).toEqual({ status: 'fulfilled', value: ['2026-01-01T00-00-grant-and-hold'] });
    expect(reappliedToo).toEqual({ status: 'fulfilled', value: undefined });
    const { rows } = await t.pool.query<{ ok: boolean }>(
      `select has_schema_privilege($1, 'analytics', 'USAGE') as ok`,
      [SERVICE_ROLES.analyst],
    );
    expect(rows[0]!.ok).toBe(true);
  });
});
