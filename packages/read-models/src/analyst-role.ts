import {
  adoptSchema,
  canActAs,
  enableAccountRowSecurity,
  qualified,
  rawQuery,
  SERVICE_ROLES,
  serviceRolesExist,
  type PoolClient,
  type RunSql,
} from '@holdfast/postgres';

/** The read-only role analysts connect through (a login role granted it); sees the accounts granted to the login. */
export const ANALYST_ROLE = SERVICE_ROLES.analyst;

const { gateway, projector, recompute, analyst, operator, console: consoleRole } = SERVICE_ROLES;

/** How the current user may treat a read-model schema. */
export type ReadModelAccess =
  /** The service roles do not exist (no migration yet, or no CREATEROLE): DDL as the current user. */
  | 'no_roles'
  /** The projector's role, a member of it, or a superuser: DDL as the projector, which owns the schema. */
  | 'owner'
  /** Any other role (the gateway's): it reads the tables and must not create them. */
  | 'reader';

/** Decides what `ensureReadModelSchema` may do with the current connection. */
export async function readModelAccess(client: PoolClient): Promise<ReadModelAccess> {
  const run: RunSql = (text) => rawQuery(client, 'analyst-role.access', text);
  if (!(await serviceRolesExist(run))) return 'no_roles';
  return (await canActAs(run, projector)) ? 'owner' : 'reader';
}

/**
 * Makes the projector's role the owner of `schema` (creating it when missing) and switches the
 * transaction to that role, so every table, index and view created next is the projector's: it folds
 * as their owner (no row-level security on its hot path) and runs its DDL at start without more
 * grants. Call inside a transaction (SET LOCAL ROLE ends with it), as an 'owner' (`readModelAccess`).
 */
export async function actAsReadModelOwner(client: PoolClient, schema: string): Promise<void> {
  const run: RunSql = (text) => rawQuery(client, 'analyst-role.adopt-schema', text);
  const { rows } = await rawQuery<{ me: boolean }>(
    client,
    'analyst-role.am-i-owner',
    `select current_user = '${projector}' as me`,
  );
  if (!rows[0]!.me) {
    await rawQuery(
      client,
      'analyst-role.create-schema',
      `create schema if not exists "${schema}" authorization ${projector}`,
    );
    await adoptSchema(run, schema, projector);
  }
  await rawQuery(client, 'analyst-role.act-as-owner', `set local role ${projector}`);
}

/**
 * The read models' grants and row-level security, after their DDL, as their owner (or a member):
 * - gateway: reads every table but the dead letters (it serves them), writes none (the projector
 *   deletes expired batch records; the delete granted before that is revoked);
 * - recompute: reads every table but the dead letters;
 * - analyst: reads every account-keyed table and the views, the rows of the accounts granted to its
 *   login only (`control.analyst_grants`; views are `security_invoker`, so the tables' policies
 *   apply through them); never the dead letters (raw records) nor the checkpoints;
 * - console: the batch records and the dead letters' metadata (never the raw record); of the orders,
 *   only what a reporting-currency change re-converts (setReportingCurrency: never amounts or people);
 * - operator: reads everything (member of the owner).
 * ALTER TABLE … SET SCHEMA carries grants and policies along, so a rebuilt table switched in keeps them.
 */
export async function applyReadModelPrivileges(client: PoolClient, schema: string): Promise<void> {
  const run: RunSql = (text) => rawQuery(client, 'analyst-role.row-security', text);
  const s = `"${schema}"`;
  await rawQuery(
    client,
    'analyst-role.grant-readers',
    `
    grant usage on schema ${s} to ${gateway}, ${recompute}, ${analyst}, ${operator};
    grant select on all tables in schema ${s} to ${gateway}, ${recompute}, ${operator};
    revoke all on ${qualified(schema, 'dead_letters')} from ${gateway}, ${recompute};
    revoke delete on ${qualified(schema, 'ingest_batches')} from ${gateway};
    revoke all on all tables in schema ${s} from ${analyst};
    grant usage on schema ${s} to ${consoleRole};
    grant select on ${qualified(schema, 'ingest_batches')}, ${qualified(schema, 'account_settings')} to ${consoleRole};
    grant select (projection, topic, partition, record_offset, id, account_id, reason, record_timestamp, status, redriven_at, request_id)
      on ${qualified(schema, 'dead_letters')} to ${consoleRole};
    grant select (account_id, currency, order_date, reporting_currency, fx_rate, fx_minor_units, fx_rate_date, fx_status),
      update (reporting_currency, fx_rate, fx_minor_units, fx_rate_date, fx_status)
      on ${qualified(schema, 'orders')} to ${consoleRole}`,
  );
  const { rows } = await rawQuery<{ name: string }>(
    client,
    'analyst-role.account-tables',
    `select c.relname as name from pg_class c join pg_namespace n on n.oid = c.relnamespace
      where n.nspname = $1 and c.relname <> 'dead_letters'
        and (c.relkind = 'v' or (c.relkind in ('r', 'p') and exists (
             select from pg_attribute a where a.attrelid = c.oid and a.attname = 'account_id')))`,
    [schema],
  );
  if (rows.length)
    await rawQuery(
      client,
      'analyst-role.grant-analyst',
      `grant select on ${rows.map((r) => qualified(schema, r.name)).join(', ')} to ${analyst}`,
    );
  await enableAccountRowSecurity(run, schema, [gateway, recompute, operator, consoleRole]);
}

/**
 * Before the service roles exist there is no analyst boundary (its row-level security names them and
 * the grants table), so the analyst reads nothing in `schema`: grants an older release gave it there
 * are taken back. A no-op when the role does not exist.
 */
export async function revokeAnalystAccess(client: PoolClient, schema: string): Promise<void> {
  // `schema` has passed assertSchemaName: safe to inline.
  await rawQuery(
    client,
    'analyst-role.revoke-analyst-access',
    `
    do $$ begin
      if exists (select from pg_roles where rolname = '${ANALYST_ROLE}') then
        revoke all on all tables in schema "${schema}" from ${ANALYST_ROLE};
      end if;
    end $$`,
  );
}
