import { sql, type Kysely } from 'kysely';
import { ControlPlaneError } from './control-plane.js';
import { namedRaw, SERVICE_ROLES, type Database } from '@holdfast/postgres';

/** What the catalog says about a role about to be granted an account (`analystLoginFacts`). */
export interface AnalystLoginFacts {
  readonly exists: boolean;
  readonly canLogin: boolean;
  readonly superuser: boolean;
  readonly bypassRls: boolean;
  /** Every role it is a member of, directly or through other roles, sorted. */
  readonly memberOf: readonly string[];
}

/**
 * Why `login` may not be an analyst login, or null when it may. The boundary keys on the role a
 * session authenticated as (`session_user`), so the login must be able to log in, and nothing it is
 * or inherits may see past row-level security: no superuser or BYPASSRLS, no service role, and no
 * membership but `holdfast_analyst` (a service role's all-accounts policy, `pg_read_all_data` or
 * another role's grants would add to what the analyst policy shows).
 *
 * @example
 * analystLoginProblem('alice', { exists: true, canLogin: true, superuser: false, bypassRls: false, memberOf: [] }); // null
 */
export function analystLoginProblem(
  login: string,
  facts: AnalystLoginFacts,
): { code: 'not_found' | 'invalid'; message: string } | null {
  if (!facts.exists)
    return {
      code: 'not_found',
      message: `no role "${login}": create the analyst's login first (create role "${login}" login password '…')`,
    };
  if ((Object.values(SERVICE_ROLES) as string[]).includes(login))
    return {
      code: 'invalid',
      message: `"${login}" is a service role: an analyst needs a login of their own`,
    };
  if (facts.superuser || facts.bypassRls)
    return {
      code: 'invalid',
      message: `"${login}" is a superuser or has BYPASSRLS, so row-level security does not apply to it`,
    };
  if (!facts.canLogin)
    return {
      code: 'invalid',
      message: `"${login}" cannot log in (NOLOGIN): grants apply to the role a session logs in as`,
    };
  const others = facts.memberOf.filter((r) => r !== SERVICE_ROLES.analyst);
  if (others.length)
    return {
      code: 'invalid',
      message:
        `"${login}" is a member of ${others.join(', ')}: an analyst login may be a member of ` +
        `${SERVICE_ROLES.analyst} only (other roles' rights add to what the analyst policy shows); revoke those first`,
    };
  return null;
}

/** Reads `AnalystLoginFacts` for `login` from the catalog. */
export async function analystLoginFacts(db: Kysely<Database>, login: string): Promise<AnalystLoginFacts> {
  const { rows } = await namedRaw<{
    can_login: boolean;
    superuser: boolean;
    bypass_rls: boolean;
    member_of: string[];
  }>(
    'analyst-grants.login-facts',
    sql`select r.rolcanlogin as can_login, r.rolsuper as superuser, r.rolbypassrls as bypass_rls,
               array(select m.rolname::text from pg_roles m
                      where m.oid <> r.oid and pg_has_role(r.oid, m.oid, 'MEMBER') order by 1) as member_of
          from pg_roles r where r.rolname = ${login}`,
  ).execute(db);
  const r = rows[0];
  if (!r) return { exists: false, canLogin: false, superuser: false, bypassRls: false, memberOf: [] };
  return {
    exists: true,
    canLogin: r.can_login,
    superuser: r.superuser,
    bypassRls: r.bypass_rls,
    memberOf: r.member_of,
  };
}

/** What `grantAnalystAccount` did. */
export interface AnalystGrantResult {
  readonly login: string;
  readonly accountId: string;
  /** False when the login already had the account (nothing changed). */
  readonly granted: boolean;
  /** True when the login was made a member of `holdfast_analyst` by this call. */
  readonly madeAnalyst: boolean;
}

/**
 * Lets the login role `login` read `accountId`'s rows in the read models and analytics. The role
 * must exist (analysts' logins and passwords are the DBA's); it is made a member of
 * `holdfast_analyst` if it is not yet, in the same transaction. Idempotent.
 *
 * @example
 * await grantAnalystAccount(db, 'alice', accountId); // { granted: true, madeAnalyst: true, … }
 */
export async function grantAnalystAccount(
  db: Kysely<Database>,
  login: string,
  accountId: string,
): Promise<AnalystGrantResult> {
  return db.transaction().execute(async (trx) => {
    const facts = await analystLoginFacts(trx, login);
    const problem = analystLoginProblem(login, facts);
    if (problem) throw new ControlPlaneError(problem.code, problem.message);
    const account = await trx
      .selectFrom('control.accounts')
      .select('id')
      .where('id', '=', accountId)
      .executeTakeFirst();
    if (!account) throw new ControlPlaneError('not_found', `no account ${accountId}`);
    const madeAnalyst = !facts.memberOf.includes(SERVICE_ROLES.analyst);
    if (madeAnalyst)
      await namedRaw(
        'analyst-grants.grant-role',
        sql`grant ${sql.id(SERVICE_ROLES.analyst)} to ${sql.id(login)}`,
      ).execute(trx);
    const inserted = await trx
      .insertInto('control.analyst_grants')
      .values({ login, account_id: accountId })
      .onConflict((oc) => oc.columns(['login', 'account_id']).doNothing())
      .returning('login')
      .executeTakeFirst();
    return { login, accountId, granted: inserted !== undefined, madeAnalyst };
  });
}

/**
 * Takes `accountId` away from `login`: its next query no longer sees the account's rows (the policy
 * reads the grants at each query). The login stays a member of `holdfast_analyst` (with no grant it
 * sees no rows). A `not_found` ControlPlaneError when there was no such grant.
 */
export async function revokeAnalystAccount(
  db: Kysely<Database>,
  login: string,
  accountId: string,
): Promise<void> {
  const deleted = await db
    .deleteFrom('control.analyst_grants')
    .where('login', '=', login)
    .where('account_id', '=', accountId)
    .executeTakeFirst();
  if (deleted.numDeletedRows === 0n)
    throw new ControlPlaneError('not_found', `"${login}" has no grant for account ${accountId}`);
}

/** One grant as the console lists it. */
export interface AnalystGrantListing {
  readonly login: string;
  readonly account_id: string;
  readonly account_name: string;
  readonly granted_at: Date;
  readonly granted_by: string;
  /** False when the login role was dropped: a role created later under the same name would inherit the grant. */
  readonly login_exists: boolean;
}

/** Every grant (or `login`'s), by login then account name. */
export async function listAnalystGrants(
  db: Kysely<Database>,
  login?: string,
): Promise<AnalystGrantListing[]> {
  let q = db
    .selectFrom('control.analyst_grants as g')
    .innerJoin('control.accounts as a', 'a.id', 'g.account_id')
    .select([
      'g.login',
      'g.account_id',
      'a.name as account_name',
      'g.granted_at',
      'g.granted_by',
      sql<boolean>`exists (select from pg_roles r where r.rolname = g.login)`.as('login_exists'),
    ])
    .orderBy('g.login')
    .orderBy('a.name')
    .orderBy('g.account_id');
  if (login !== undefined) q = q.where('g.login', '=', login);
  return (await q.execute()).map((r) => ({ ...r, granted_at: r.granted_at as unknown as Date }));
}
