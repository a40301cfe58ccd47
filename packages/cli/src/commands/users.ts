import { Option } from 'commander';
import { ACCOUNT_ROLES, inviteUser } from '@holdfast/control-plane';
import type { AccountRole } from '@holdfast/postgres';
import { CliError } from '../context.js';
import { iso, uuid } from '../format.js';
import type { RegisterCommand } from './index.js';

/** The console's public base URL for links (HOLDFAST_CONSOLE_URL; locally the console's default port). */
export function consoleUrl(env: Readonly<Record<string, string | undefined>>): string {
  return (env.HOLDFAST_CONSOLE_URL ?? 'http://127.0.0.1:8090').replace(/\/+$/, '');
}

/**
 * `holdfast users invite`: the people of the console (docs/console.md). The first owner of an account
 * is invited here; everyone after them can be invited from the console by an owner or admin.
 */
export const registerUsers: RegisterCommand = (program, context) => {
  const users = program
    .command('users')
    .description('console users: invite owners, admins, analysts, viewers, operators');

  users
    .command('invite')
    .description(
      'invite a person to an account (prints a one-time link, valid 7 days, that sets their password and second factor)',
    )
    .requiredOption('--email <address>', 'their email address')
    .addOption(new Option('--account <id>', 'account id (see `holdfast accounts list`)').argParser(uuid))
    .addOption(
      new Option('--role <role>', 'their role in the account').choices(ACCOUNT_ROLES).default('owner'),
    )
    .option('--operator', 'an operator: sees and administers every account (no --account)')
    .action(async (o: { email: string; account?: string; role: AccountRole; operator?: boolean }) => {
      const ctx = context();
      if (!o.operator && !o.account) throw new CliError('pass --account <id> (or --operator)', 2);
      if (o.operator && o.account) throw new CliError('an operator sees every account: drop --account', 2);
      const db = await ctx.db();
      const inv = await inviteUser(db, {
        email: o.email,
        accountId: o.account ?? null,
        role: o.role,
        operator: o.operator === true,
      });
      const link = `${consoleUrl(ctx.env)}/invite/${inv.token}`;
      ctx.out(
        {
          user_id: inv.userId,
          account_id: o.account ?? null,
          role: o.operator ? 'operator' : o.role,
          link,
          expires_at: iso(inv.expiresAt),
          existing_user: inv.existingUser,
        },
        [
          `Invited ${o.operator ? 'an operator' : `a${o.role === 'owner' || o.role === 'admin' || o.role === 'analyst' ? 'n' : ''} ${o.role} of ${o.account}`}.`,
          `One-time link (valid until ${iso(inv.expiresAt)}; send it to them privately, it is shown once):`,
          `  ${link}`,
        ].join('\n'),
      );
    });
};
