import type { PoolClient } from '@holdfast/db';

/** The read-only role analysts connect through (directly or via a login role granted it). */
export const ANALYST_ROLE = 'holdfast_analyst';

/**
 * Creates `holdfast_analyst` if missing and lets it read `schema`: USAGE, SELECT on every table, and
 * default privileges so tables created later are readable too. Roles are cluster-wide and several
 * databases (test runs, services) may race to create it, so a concurrent creation is not an error;
 * nor is a database user without CREATEROLE (the grants are then skipped until an operator creates
 * the role). dead_letters holds raw record bytes (names, emails): analysts do not need them.
 */
export async function grantAnalystAccess(client: PoolClient, schema: string): Promise<void> {
  // `schema` has passed assertSchemaName: safe to inline.
  await client.query(`
    do $$ begin
      begin
        if not exists (select from pg_roles where rolname = '${ANALYST_ROLE}') then
          create role ${ANALYST_ROLE} nologin;
        end if;
      exception when duplicate_object or unique_violation or insufficient_privilege then null;
      end;
      if exists (select from pg_roles where rolname = '${ANALYST_ROLE}') then
        grant usage on schema "${schema}" to ${ANALYST_ROLE};
        grant select on all tables in schema "${schema}" to ${ANALYST_ROLE};
        alter default privileges in schema "${schema}" grant select on tables to ${ANALYST_ROLE};
        revoke select on "${schema}".dead_letters from ${ANALYST_ROLE};
      end if;
    end $$`);
}
