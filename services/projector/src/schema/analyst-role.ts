import type { PoolClient } from '@holdfast/db';

/** The read-only role analysts connect through (directly or via a login role granted it). */
export const ANALYST_ROLE = 'holdfast_analyst';

/**
 * Creates `holdfast_analyst` if missing and lets it read `schema`: USAGE, SELECT on every table, and
 * default privileges so tables created later are readable too. Roles are cluster-wide and several
 * databases (test runs, services) may race to create it, so a concurrent creation is not an error.
 * dead_letters holds raw record bytes (names, emails): analysts do not need them, so it is withheld.
 */
export async function grantAnalystAccess(client: PoolClient, schema: string): Promise<void> {
  await client.query(`
    do $$ begin
      if not exists (select from pg_roles where rolname = '${ANALYST_ROLE}') then
        create role ${ANALYST_ROLE} nologin;
      end if;
    exception when duplicate_object or unique_violation then null;
    end $$`);
  await client.query(`grant usage on schema "${schema}" to ${ANALYST_ROLE}`);
  await client.query(`grant select on all tables in schema "${schema}" to ${ANALYST_ROLE}`);
  await client.query(`alter default privileges in schema "${schema}" grant select on tables to ${ANALYST_ROLE}`);
  await client.query(`revoke select on "${schema}".dead_letters from ${ANALYST_ROLE}`);
}
