/**
 * The PostgreSQL roles Holdfast runs as, one per service (created by the migration
 * `2026-11-24T02-00-roles`; what each may do is granted by `applyPrivileges` and, for the read models,
 * by the projector's schema code).
 *
 * @example
 * // production: each process connects as its own role
 * // GATEWAY: DATABASE_URL=postgres://holdfast_gateway:<secret>@db/holdfast
 */
export const SERVICE_ROLES = Object.freeze({
  /** Reads the control plane and the read models it serves; writes rate counters, last-used marks, sync tasks. */
  gateway: 'holdfast_gateway',
  /** Owns the read-model schemas (rows, checkpoints, dead letters); no access to the control plane. */
  projector: 'holdfast_projector',
  /** Owns `analytics` and `recompute`; reads the read models; writes sync tasks. */
  recompute: 'holdfast_recompute',
  /** Owns `dispatcher`; reads the webhook subscriptions it delivers to, nothing else. */
  dispatcher: 'holdfast_dispatcher',
  /** The web console: its people, sessions and audit log; the account settings it changes (docs/console.md). */
  console: 'holdfast_console',
  /** Sees the accounts granted to its login (`control.analyst_grants`, row-level security). NOLOGIN: granted to analysts' logins. */
  analyst: 'holdfast_analyst',
  /** Runs migrations and the CLI; member of every writer role, so it administers (and sees) everything. */
  operator: 'holdfast_operator',
});

export type ServiceRole = (typeof SERVICE_ROLES)[keyof typeof SERVICE_ROLES];

/** The table of analyst grants: (login, account_id) pairs the analysts' row-level security reads. */
export const ANALYST_GRANTS_TABLE = 'control.analyst_grants';

/**
 * The accounts the session's login was granted, as an array: `session_user` is the role that
 * authenticated (SET ROLE does not change it, only a superuser's SET SESSION AUTHORIZATION does), and
 * no setting the session may choose takes part. `array(select …)` runs once per query as an InitPlan,
 * so `account_id = any(…)` is an index condition; an `in (select …)` in a policy stays a per-row
 * SubPlan filter (a sequential scan: docs/security.md has the figures).
 */
export const ANALYST_GRANTED_ACCOUNTS = `array(select g.account_id from ${ANALYST_GRANTS_TABLE} g where g.login = session_user)`;

/**
 * The analyst's row filter: the accounts granted to the login (`holdfast analysts grant`); no grant,
 * no rows. Fully qualified and stored parsed (by OID), so the session's search_path cannot redirect it.
 */
export const ANALYST_ROW_FILTER = `account_id = any (${ANALYST_GRANTED_ACCOUNTS})`;
// The same over a text account_id (dead letters keep what the record said, unparsed; never granted).
const ANALYST_ROW_FILTER_TEXT = `account_id = any (${ANALYST_GRANTED_ACCOUNTS}::text[])`;

/** The analyst's policy on every account-keyed table. */
export const ANALYST_POLICY = 'holdfast_analyst_granted_accounts';

/** Runs one SQL text (several statements allowed) and returns its rows: a pg client or kysely adapter. */
export type RunSql = (text: string) => Promise<{ rows: readonly unknown[] }>;

const quoteIdent = (name: string): string => `"${name.replace(/"/g, '""')}"`;
/** `"schema"."table"`, quoted. */
export const qualified = (schema: string, table: string): string =>
  `${quoteIdent(schema)}.${quoteIdent(table)}`;

/** Whether every service role exists (they do once the roles migration ran on any database of the cluster). */
export async function serviceRolesExist(run: RunSql): Promise<boolean> {
  const names = Object.values(SERVICE_ROLES);
  const { rows } = await run(
    `select count(*)::int as n from pg_roles where rolname in (${names.map((n) => `'${n}'`).join(', ')})`,
  );
  return (rows[0] as { n: number }).n === names.length;
}

/**
 * Whether the current user may act as `role` (superuser, the role itself, or a member): i.e. create
 * objects owned by it (SET ROLE) and change what it owns. False when the roles do not exist.
 */
export async function canActAs(run: RunSql, role: ServiceRole): Promise<boolean> {
  const { rows } = await run(
    `select exists (select from pg_roles where rolname = '${role}')
        and pg_has_role(current_user, (select oid from pg_roles where rolname = '${role}'), 'USAGE') as ok`,
  );
  return (rows[0] as { ok: boolean }).ok;
}

/**
 * Turns on row-level security for every table of `schema` with an `account_id` column: the analyst
 * sees the accounts granted to its login (`ANALYST_ROW_FILTER`); `allAccounts` (the non-owner roles
 * that read or write every account's rows) get a permissive policy. Any other policy for the analyst
 * (the setting-keyed `holdfast_analyst_one_account` of before) is dropped: permissive policies add
 * up, so one left behind would widen what the analyst sees. The table's owner bypasses RLS (not
 * FORCEd), so the writer's hot path is untouched. Idempotent; needs the table's owner or a member of
 * it, with USAGE on schema `control` (the policy names the grants table).
 */
export async function enableAccountRowSecurity(
  run: RunSql,
  schema: string,
  allAccounts: readonly ServiceRole[],
): Promise<void> {
  const { rows } = await run(
    `select c.relname as name,
            (select a.atttypid = 'uuid'::regtype from pg_attribute a
              where a.attrelid = c.oid and a.attname = 'account_id') as is_uuid,
            array(select p.policyname::text from pg_policies p
                   where p.schemaname = n.nspname and p.tablename = c.relname
                     and '${SERVICE_ROLES.analyst}' = any (p.roles)) as analyst_policies,
            exists (select from pg_policies p where p.schemaname = n.nspname and p.tablename = c.relname
                     and p.policyname = 'holdfast_all_accounts') as has_all
       from pg_class c join pg_namespace n on n.oid = c.relnamespace
      where n.nspname = '${schema}' and c.relkind in ('r', 'p')
        and exists (select from pg_attribute a where a.attrelid = c.oid and a.attname = 'account_id'
                     and not a.attisdropped)
      order by 1`,
  );
  // Before the control plane's migration created the grants table (a read-model schema created
  // first), the analyst gets no policy: RLS without one shows it no rows. The next run adds it.
  const { rows: ready } = await run(
    `select exists (select from pg_class c join pg_namespace n on n.oid = c.relnamespace
                     where n.nspname = 'control' and c.relname = 'analyst_grants') as ok`,
  );
  const grantsTableExists = (ready[0] as { ok: boolean }).ok;
  const statements: string[] = [];
  type Row = { name: string; is_uuid: boolean; analyst_policies: string[]; has_all: boolean };
  for (const r of rows as Row[]) {
    const t = qualified(schema, r.name);
    statements.push(`alter table ${t} enable row level security`);
    for (const stale of r.analyst_policies.filter((p) => p !== ANALYST_POLICY))
      statements.push(`drop policy ${quoteIdent(stale)} on ${t}`);
    if (grantsTableExists && !r.analyst_policies.includes(ANALYST_POLICY))
      statements.push(
        `create policy ${ANALYST_POLICY} on ${t} for select to ${SERVICE_ROLES.analyst} using (${r.is_uuid ? ANALYST_ROW_FILTER : ANALYST_ROW_FILTER_TEXT})`,
      );
    if (!r.has_all && allAccounts.length)
      statements.push(
        `create policy holdfast_all_accounts on ${t} to ${allAccounts.join(', ')} using (true) with check (true)`,
      );
    // A role added to the list later (the console, 2026-11-29) joins the policy created before it.
    else if (r.has_all && allAccounts.length)
      statements.push(`alter policy holdfast_all_accounts on ${t} to ${allAccounts.join(', ')}`);
  }
  if (statements.length) await run(statements.join(';\n'));
}

/**
 * Gives `owner` the schema and every table and view in it (tables created by a migration or by an
 * earlier run as another user). Needs a superuser or a member of `owner`. Idempotent.
 */
export async function adoptSchema(run: RunSql, schema: string, owner: ServiceRole): Promise<void> {
  const { rows } = await run(
    `select n.nspowner <> (select oid from pg_roles where rolname = '${owner}') as schema_differs,
            array(select c.relname::text from pg_class c
                   where c.relnamespace = n.oid and c.relkind in ('r', 'p', 'v', 'm', 'f')
                     and c.relowner <> (select oid from pg_roles where rolname = '${owner}')
                   order by 1) as tables
       from pg_namespace n where n.nspname = '${schema}'`,
  );
  const row = rows[0] as { schema_differs: boolean; tables: string[] } | undefined;
  if (!row) return;
  const statements = row.tables.map((t) => `alter table ${qualified(schema, t)} owner to ${owner}`);
  if (row.schema_differs) statements.unshift(`alter schema ${quoteIdent(schema)} owner to ${owner}`);
  if (statements.length) await run(statements.join(';\n'));
}
