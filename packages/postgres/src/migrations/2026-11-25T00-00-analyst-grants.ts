import { sql, type Kysely } from 'kysely';

/**
 * The analysts' tenant boundary (docs/security.md, "The analyst boundary"): which accounts each
 * analyst login may read, keyed on the login role's name. Row-level security on every account-keyed
 * read-model and analytics table compares `account_id` with this table's rows for `session_user`
 * (the authenticated login, which SET ROLE does not change), never with a setting the session chooses.
 * The table's own policies and grants are applied by `applyPrivileges` (they name the service roles,
 * which may not exist yet when this runs).
 */
// Frozen in time: never edit a migration that has run; add a new one.
// eslint-disable-next-line @typescript-eslint/no-explicit-any
export async function up(db: Kysely<any>): Promise<void> {
  await sql`
    create table control.analyst_grants (
      login name not null,
      account_id uuid not null references control.accounts (id) on delete cascade,
      granted_at timestamptz not null default now(),
      granted_by name not null default session_user,
      primary key (login, account_id)
    );
    create index analyst_grants_account on control.analyst_grants (account_id);
    alter table control.analyst_grants enable row level security;
  `.execute(db);
}
