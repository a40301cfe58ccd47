import type { Selectable } from 'kysely';
import { setReportingCurrency } from '@holdfast/read-models';
import {
  createAccount,
  describeAccount,
  listAccounts,
  listApiKeys,
  listPixelKeys,
  listProviders,
  listTiles,
  listWebhookSubscriptions,
  markAccount,
  normalizeStorefrontDomain,
  setReadWithIngestKey,
  setStorefrontDomain,
} from '@holdfast/control-plane';
import type { AccountsTable } from '@holdfast/postgres';
import { CliError } from '../context.js';
import { iso, table, uuid, when } from '../format.js';
import { tileState } from '../tile-status.js';
import type { RegisterCommand } from './index.js';
import { fxCommand } from './rates.js';

/** The JSON shape of an account in every command's output. */
export function accountJson(a: Selectable<AccountsTable>) {
  return {
    id: a.id,
    name: a.name,
    storefront_domain: a.storefront_domain,
    is_demo: a.is_demo,
    is_sandbox: a.is_sandbox,
    created_at: iso(a.created_at),
  };
}

function flags(a: { is_demo: boolean; is_sandbox: boolean }): string {
  return [a.is_demo && 'demo', a.is_sandbox && 'sandbox'].filter(Boolean).join(',') || '-';
}

/** `holdfast accounts ...`: create, show, list, set-domain, mark. */
export const registerAccounts: RegisterCommand = (program, context) => {
  const accounts = program.command('accounts').description('create and inspect merchant accounts');

  accounts
    .command('create')
    .description('create an account (prints its id)')
    .requiredOption('--name <name>', 'display name of the merchant')
    .option('--storefront-domain <domain>', 'storefront domain calls-to-action link to (shop.example.com)')
    .option('--demo', 'mark as a demo account (its pixel events are refused)')
    .option('--sandbox', 'mark as a sandbox account (takes tk_test_ keys only)')
    .action(async (o: { name: string; storefrontDomain?: string; demo?: boolean; sandbox?: boolean }) => {
      const ctx = context();
      if (!o.name.trim()) throw new CliError('--name must not be empty', 2);
      const domain = o.storefrontDomain === undefined ? null : normalizeStorefrontDomain(o.storefrontDomain);
      const db = await ctx.db();
      const { id } = await createAccount(db, {
        name: o.name.trim(),
        storefrontDomain: domain,
        isDemo: o.demo ?? false,
        isSandbox: o.sandbox ?? false,
      });
      const acc = await describeAccount(db, id);
      ctx.out(accountJson(acc), `Created account ${id} (${acc.name})`);
      if (!domain)
        ctx.log(`Set its storefront domain before any campaign: holdfast accounts set-domain ${id} <domain>`);
    });

  accounts
    .command('show')
    .description('show an account with its keys, tiles, pixel keys, webhooks and providers')
    .argument('<id>', 'account id', uuid)
    .action(async (id: string) => {
      const ctx = context();
      const db = await ctx.db();
      const acc = await describeAccount(db, id);
      const [keys, tiles, pixel, hooks, providers] = await Promise.all([
        listApiKeys(db, id),
        listTiles(db, id),
        listPixelKeys(db, id),
        listWebhookSubscriptions(db, id),
        listProviders(db, id),
      ]);
      const working = (k: { status: string }) => k.status === 'live' || k.status === 'expiring';
      const detail = {
        ...accountJson(acc),
        live_ingest_keys: keys.filter((k) => k.kind.startsWith('ingest_') && working(k)).length,
        live_read_keys: keys.filter((k) => k.kind === 'read_live' && working(k)).length,
        read_with_ingest_key: acc.read_with_ingest_key,
        outbound_keys: keys.filter((k) => k.kind === 'outbound' && working(k)).length,
        tiles: {
          custom_integration: tileState(
            'custom_integration',
            tiles.find((t) => t.tile === 'custom_integration'),
          ),
          zero_party: tileState(
            'zero_party',
            tiles.find((t) => t.tile === 'zero_party'),
          ),
        },
        pixel_keys: pixel.filter((p) => !p.revoked_at).length,
        webhook_subscriptions: hooks.filter((h) => !h.disabled_at).length,
        providers: providers.map((p) => `${p.provider} (${p.channel})`),
      };
      ctx.out(detail, () =>
        [
          `Account           ${acc.id}`,
          `Name              ${acc.name}`,
          `Storefront domain ${acc.storefront_domain ?? '- (not set: campaigns cannot be built)'}`,
          `Flags             ${flags(acc)}`,
          `Created           ${when(acc.created_at)}`,
          `Live ingest keys  ${detail.live_ingest_keys}`,
          `Live read keys    ${detail.live_read_keys} (ingest keys may read: ${acc.read_with_ingest_key ? 'on' : 'off'})`,
          `Outbound keys     ${detail.outbound_keys}`,
          `Custom integration ${detail.tiles.custom_integration}`,
          `Zero-party tile   ${detail.tiles.zero_party}`,
          `Pixel keys        ${detail.pixel_keys}`,
          `Webhooks          ${detail.webhook_subscriptions}`,
          `Providers         ${detail.providers.join(', ') || '-'}`,
        ].join('\n'),
      );
    });

  accounts
    .command('list')
    .description('list accounts, oldest first')
    .action(async () => {
      const ctx = context();
      const rows = await listAccounts(await ctx.db());
      ctx.out(rows.map(accountJson), () =>
        rows.length
          ? table(
              ['ID', 'NAME', 'DOMAIN', 'FLAGS', 'CREATED'],
              rows.map((a) => [a.id, a.name, a.storefront_domain ?? '-', flags(a), when(a.created_at)]),
            )
          : 'No accounts yet: holdfast accounts create --name <name>',
      );
    });

  accounts
    .command('set-domain')
    .description('set the storefront domain every call-to-action is built on')
    .argument('<id>', 'account id', uuid)
    .argument('<domain>', 'storefront domain, e.g. shop.example.com')
    .action(async (id: string, domain: string) => {
      const ctx = context();
      const value = await setStorefrontDomain(await ctx.db(), id, domain);
      ctx.out({ id, storefront_domain: value }, `Storefront domain of ${id} is now ${value}`);
    });

  accounts
    .command('set-read-with-ingest-key')
    .description('let the ingest keys of the account call the /v1/ read routes too (default off)')
    .argument('<id>', 'account id', uuid)
    .argument('<state>', 'on or off')
    .action(async (id: string, state: string) => {
      const ctx = context();
      if (state !== 'on' && state !== 'off') throw new CliError(`state must be on or off, not "${state}"`, 2);
      await setReadWithIngestKey(await ctx.db(), id, state === 'on');
      ctx.out(
        { id, read_with_ingest_key: state === 'on' },
        `Ingest keys of ${id} ${state === 'on' ? 'may now read' : 'no longer read'} (/v1/ read routes)`,
      );
    });

  accounts
    .command('set-currency')
    .description(
      'set the reporting currency order amounts are converted into (default USD), re-converting its orders',
    )
    .argument('<id>', 'account id', uuid)
    .argument('<currency>', '3-letter code quoted by the imported rates, or EUR')
    .action(async (id: string, currency: string) => {
      const ctx = context();
      await describeAccount(await ctx.db(), id);
      const code = currency.trim().toUpperCase();
      const orders = await fxCommand(() => setReportingCurrency(ctx.pool(), id, code));
      ctx.out(
        { id, reporting_currency: code, orders_reconverted: orders },
        `Reporting currency of ${id} is now ${code}; ${orders} orders re-converted.`,
      );
    });

  accounts
    .command('mark')
    .description('set or clear the demo and sandbox flags')
    .argument('<id>', 'account id', uuid)
    .option('--demo', 'mark as demo')
    .option('--no-demo', 'clear the demo flag')
    .option('--sandbox', 'mark as sandbox (only tk_test_ keys)')
    .option('--no-sandbox', 'clear the sandbox flag (only tk_live_ keys)')
    .action(async (id: string, o: { demo?: boolean; sandbox?: boolean }) => {
      const ctx = context();
      if (o.demo === undefined && o.sandbox === undefined)
        throw new CliError('nothing to change: pass --demo, --no-demo, --sandbox or --no-sandbox', 2);
      const acc = await markAccount(await ctx.db(), id, { isDemo: o.demo, isSandbox: o.sandbox });
      ctx.out(accountJson(acc), `Account ${id}: demo=${acc.is_demo} sandbox=${acc.is_sandbox}`);
    });
};
