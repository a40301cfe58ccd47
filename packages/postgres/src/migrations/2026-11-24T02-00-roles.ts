import { sql, type Kysely } from 'kysely';

// Frozen in time: never edit a migration that has run; add a new one.
//
// One PostgreSQL role per service (least privilege). Roles are cluster-wide while this migration runs
// once per database, so several databases (test runs, environments) may race to create them: a
// concurrent creation or membership grant is not an error, nor is a database user without CREATEROLE
// (then the roles are the DBA's to create, with these names, and the grants wait for them). The login
// roles get no password here: locally the server trusts 127.0.0.1; in production an operator sets
// each password from configuration (docs/security.md, "Privilege and transport"). What each role may
// do is granted by `applyPrivileges` after every migration run, so tables added later get their
// grants too.
// eslint-disable-next-line @typescript-eslint/no-explicit-any
export async function up(db: Kysely<any>): Promise<void> {
  await sql`
    do $$
    declare
      r text;
      attempt int;
    begin
      foreach r in array array['holdfast_gateway', 'holdfast_projector', 'holdfast_recompute',
                               'holdfast_dispatcher', 'holdfast_operator', 'holdfast_analyst'] loop
        begin
          if not exists (select from pg_roles where rolname = r) then
            -- analysts connect through login roles of their own that are granted holdfast_analyst
            execute format('create role %I %s', r, case when r = 'holdfast_analyst' then 'nologin' else 'login' end);
          end if;
        exception when duplicate_object or unique_violation or insufficient_privilege then null;
        end;
      end loop;
      -- The operator (migrations, the CLI) administers what the writers own: ownership checks inherit.
      if exists (select from pg_roles where rolname = 'holdfast_operator') then
        foreach r in array array['holdfast_gateway', 'holdfast_projector', 'holdfast_recompute',
                                 'holdfast_dispatcher'] loop
          for attempt in 1..5 loop
            exit when not exists (select from pg_roles where rolname = r)
                   or pg_has_role('holdfast_operator', r, 'MEMBER');
            begin
              execute format('grant %I to holdfast_operator', r);
            exception
              when insufficient_privilege then exit;
              -- "tuple concurrently updated" (XX000) or a duplicate row: another database's run won
              when unique_violation or internal_error then perform pg_sleep(0.05 * attempt);
            end;
          end loop;
        end loop;
      end if;
    end $$;
  `.execute(db);
}
