import { Option } from 'commander';
import {
  grantAnalystAccount,
  listAnalystGrants,
  revokeAnalystAccount,
  type AnalystGrantListing,
} from '@holdfast/control-plane';
import { SERVICE_ROLES } from '@holdfast/postgres';
import { CliError } from '../context.js';
import { accountOption, iso, table, when } from '../format.js';
import type { RegisterCommand } from './index.js';

const loginOption = () =>
  new Option('--login <name>', "the analyst's PostgreSQL login role (as they connect)").makeOptionMandatory();

function grantJson(g: AnalystGrantListing) {
  return {
    login: g.login,
    account_id: g.account_id,
    account_name: g.account_name,
    granted_at: iso(g.granted_at),
    granted_by: g.granted_by,
    login_exists: g.login_exists,
  };
}

/** The membership grant needs CREATEROLE (or ADMIN on the analyst role): say so instead of a stack. */
async function withRoleRights<T>(login: string, work: () => Promise<T>): Promise<T> {
  try {
    return await work();
  } catch (err) {
    if ((err as { code?: string }).code === '42501')
      throw new CliError(
        `cannot make "${login}" a member of ${SERVICE_ROLES.analyst}: ${(err as Error).message}. ` +
          `Run as a role with CREATEROLE, or have a DBA run: grant ${SERVICE_ROLES.analyst} to "${login}"`,
        1,
      );
    throw err;
  }
}

/** `holdfast analysts grant|revoke|list`: which accounts each analyst login may read. */
export const registerAnalysts: RegisterCommand = (program, context) => {
  const analysts = program
    .command('analysts')
    .description(
      "analysts' read access: which accounts each analyst login sees in the read models and analytics",
    );

  analysts
    .command('grant')
    .description(
      `let a login role read one account (the role must exist; it is made a member of ${SERVICE_ROLES.analyst} if not yet)`,
    )
    .addOption(loginOption())
    .addOption(accountOption())
    .action(async (o: { login: string; account: string }) => {
      const ctx = context();
      const db = await ctx.db();
      const r = await withRoleRights(o.login, () => grantAnalystAccount(db, o.login, o.account));
      ctx.out(
        { login: r.login, account_id: r.accountId, granted: r.granted, made_analyst: r.madeAnalyst },
        (r.granted
          ? `Granted account ${r.accountId} to "${r.login}": their next query sees its rows.`
          : `"${r.login}" already had account ${r.accountId}; nothing changed.`) +
          (r.madeAnalyst ? `\n"${r.login}" is now a member of ${SERVICE_ROLES.analyst}.` : ''),
      );
    });

  analysts
    .command('revoke')
    .description("take one account away from a login (its next query no longer sees the account's rows)")
    .addOption(loginOption())
    .addOption(accountOption())
    .action(async (o: { login: string; account: string }) => {
      const ctx = context();
      await revokeAnalystAccount(await ctx.db(), o.login, o.account);
      ctx.out(
        { login: o.login, account_id: o.account, revoked: true },
        `Revoked account ${o.account} from "${o.login}".`,
      );
    });

  analysts
    .command('list')
    .description('every grant (or one login’s): login, account, when and by whom')
    .option('--login <name>', 'one login only')
    .action(async (o: { login?: string }) => {
      const ctx = context();
      const grants = await listAnalystGrants(await ctx.db(), o.login);
      ctx.out(grants.map(grantJson), () =>
        grants.length
          ? table(
              ['LOGIN', 'ACCOUNT', 'NAME', 'GRANTED', 'BY'],
              grants.map((g) => [
                g.login_exists ? g.login : `${g.login} (no such role)`,
                g.account_id,
                g.account_name,
                when(g.granted_at),
                g.granted_by,
              ]),
            )
          : 'No analyst grants.',
      );
    });
};
