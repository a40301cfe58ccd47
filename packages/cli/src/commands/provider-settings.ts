import { readFileSync } from 'node:fs';
import { Option, type Command } from 'commander';
import { setEmailProvider, setSmsProvider } from '@holdfast/control-plane';
import { CliError, type CliContext } from '../context.js';
import { accountOption, httpUrl } from '../format.js';
import { inboundKeyringFor, keyringFor } from './secrets.js';

/** A secret from a file (never from the command line, where `ps` and shell history would show it). */
function secretFile(path: string, what: string): string {
  let text: string;
  try {
    text = readFileSync(path, 'utf8');
  } catch {
    throw new CliError(`cannot read ${what} file ${path}`, 2);
  }
  const secret = text.replace(/\r?\n$/, '');
  if (!secret) throw new CliError(`${what} file ${path} is empty`, 2);
  return secret;
}

function port(value: string): number {
  const n = Number(value);
  if (!/^\d+$/.test(value) || n < 1 || n > 65_535) throw new CliError(`"${value}" is not a TCP port`, 2);
  return n;
}

const testMode = (ctx: CliContext): boolean => /^(1|true|yes)$/i.test(ctx.env.HOLDFAST_TEST_MODE ?? '');

/**
 * `holdfast providers set-email` and `set-sms`: connect a real provider with its credentials (sealed
 * under HOLDFAST_SECRETS_KEYS; see docs/campaigns.md, "Providers"). `checkDestination` is the
 * outbound-policy check of the caller (it refuses an SMS base URL the services would refuse).
 */
export function registerProviderSettings(
  providers: Command,
  context: () => CliContext,
  checkDestination: (ctx: CliContext, url: string) => void,
): void {
  providers
    .command('set-email')
    .description('connect an SMTP provider (password sealed at rest); STARTTLS is required by default')
    .addOption(accountOption())
    .option('--provider <name>', 'provider name', 'smtp')
    .requiredOption('--host <host>', 'SMTP host')
    .option('--port <port>', 'SMTP port', port, 587)
    .requiredOption('--user <user>', 'SMTP user name')
    .requiredOption('--password-file <path>', 'file holding the SMTP password')
    .requiredOption('--from <address>', 'sender, e.g. "Shop <news@shop.example.com>"')
    .addOption(
      new Option('--tls <mode>', 'starttls (required upgrade), implicit (port 465), none (test mode only)')
        .choices(['starttls', 'implicit', 'none'])
        .default('starttls'),
    )
    .option('--ca-file <path>', 'PEM certificate of a private CA to trust besides the system ones')
    .action(
      async (o: {
        account: string;
        provider: string;
        host: string;
        port: number;
        user: string;
        passwordFile: string;
        from: string;
        tls: 'starttls' | 'implicit' | 'none';
        caFile?: string;
      }) => {
        const ctx = context();
        if (o.tls === 'none' && !testMode(ctx))
          throw new CliError(
            '--tls none sends the SMTP password and messages in clear: only with HOLDFAST_TEST_MODE=1',
            2,
          );
        const password = secretFile(o.passwordFile, 'password');
        const ca = o.caFile ? secretFile(o.caFile, 'CA certificate') : null;
        await setEmailProvider(
          await ctx.db(),
          o.account,
          { provider: o.provider, host: o.host, port: o.port, user: o.user, from: o.from, tls: o.tls, ca },
          password,
          keyringFor(ctx),
        );
        ctx.out(
          {
            account_id: o.account,
            provider: o.provider,
            channel: 'email',
            kind: 'smtp',
            host: o.host,
            port: o.port,
            tls: o.tls,
          },
          `Connected ${o.provider} (email over SMTP ${o.host}:${o.port}, tls ${o.tls}) for ${o.account}; password sealed`,
        );
      },
    );

  providers
    .command('set-sms')
    .description("connect an SMS provider with Twilio's Messages API shape (auth token sealed at rest)")
    .addOption(accountOption())
    .option('--provider <name>', 'provider name', 'twilio')
    .requiredOption('--account-sid <sid>', 'the API account SID (the basic-auth user)')
    .requiredOption('--auth-token-file <path>', 'file holding the auth token')
    .requiredOption('--from <number>', 'sending number (E.164) or messaging service id')
    .option('--base-url <url>', 'API base URL', httpUrl, 'https://api.twilio.com')
    .action(
      async (o: {
        account: string;
        provider: string;
        accountSid: string;
        authTokenFile: string;
        from: string;
        baseUrl: string;
      }) => {
        const ctx = context();
        if (!/^[A-Za-z0-9]{2,64}$/.test(o.accountSid))
          throw new CliError(`"${o.accountSid}" is not an account SID`, 2);
        const baseUrl = o.baseUrl.replace(/\/+$/, '');
        checkDestination(ctx, baseUrl);
        const token = secretFile(o.authTokenFile, 'auth token');
        await setSmsProvider(
          await ctx.db(),
          o.account,
          { provider: o.provider, baseUrl, accountSid: o.accountSid, from: o.from },
          token,
          keyringFor(ctx),
          inboundKeyringFor(ctx),
        );
        ctx.out(
          { account_id: o.account, provider: o.provider, channel: 'sms', kind: 'twilio', base_url: baseUrl },
          `Connected ${o.provider} (SMS via ${baseUrl}) for ${o.account}; auth token sealed`,
        );
      },
    );
}
