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
  /** Sees one account at a time (row-level security keyed on `holdfast.account_id`). NOLOGIN: granted to analysts' logins. */
  analyst: 'holdfast_analyst',
  /** Runs migrations and the CLI; member of every writer role, so it administers (and sees) everything. */
  operator: 'holdfast_operator',
});

export type ServiceRole = (typeof SERVICE_ROLES)[keyof typeof SERVICE_ROLES];

/** The session setting the analyst's row-level security is keyed on: `set holdfast.account_id = '<uuid>'`. */
export const ANALYST_ACCOUNT_SETTING = 'holdfast.account_id';

/**
 * The analyst's row filter: the account named by the session setting, and nothing when it is unset
 * (NULL never equals) or empty. `current_setting` is stable, so an index on account_id still serves it.
 */
export const ANALYST_ROW_FILTER = `account_id = nullif(current_setting('${ANALYST_ACCOUNT_SETTING}', true), '')::uuid`;
// The same over a text account_id (dead letters keep what the record said, unparsed).
const ANALYST_ROW_FILTER_TEXT = `account_id = nullif(current_setting('${ANALYST_ACCOUNT_SETTING}', true), '')`;

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
 * sees the account of its session setting only; `allAccounts` (the non-owner roles that read or write
 * every account's rows) get a permissive policy. The table's owner bypasses RLS (not FORCEd), so the
 * writer's hot path is untouched. Idempotent; needs the table's owner or a member of it.
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
            exists (select from pg_policies p where p.schemaname = n.nspname and p.tablename = c.relname
                     and p.policyname = 'holdfast_analyst_one_account') as has_analyst,
            exists (select from pg_policies p where p.schemaname = n.nspname and p.tablename = c.relname
                     and p.policyname = 'holdfast_all_accounts') as has_all
       from pg_class c join pg_namespace n on n.oid = c.relnamespace
      where n.nspname = '${schema}' and c.relkind in ('r', 'p')
        and exists (select from pg_attribute a where a.attrelid = c.oid and a.attname = 'account_id'
                     and not a.attisdropped)
      order by 1`,
  );
  const statements: string[] = [];
  for (const r of rows as { name: string; is_uuid: boolean; has_analyst: boolean; has_all: boolean }[]) {
    const t = qualified(schema, r.name);
    statements.push(`alter table ${t} enable row level security`);
    if (!r.has_analyst)
      statements.push(
        `create policy holdfast_analyst_one_account on ${t} for select to ${SERVICE_ROLES.analyst} using (${r.is_uuid ? ANALYST_ROW_FILTER : ANALYST_ROW_FILTER_TEXT})`,
      );
    if (!r.has_all && allAccounts.length)
      statements.push(
        `create policy holdfast_all_accounts on ${t} to ${allAccounts.join(', ')} using (true) with check (true)`,
      );
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
