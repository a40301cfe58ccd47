import { Option } from 'commander';
import {
  connectProvider,
  createWebhookSubscription,
  describeAccount,
  disableWebhookSubscription,
  listProviders,
  listWebhookSubscriptions,
} from '@holdfast/db';
import { accountOption, httpUrl, iso, table, uuid, when } from '../format.js';
import type { RegisterCommand } from './index.js';

/** `holdfast webhooks ...`: outbound webhook subscriptions (campaign.sent, signed with a whsec_ secret). */
export const registerWebhooks: RegisterCommand = (program, context) => {
  const hooks = program
    .command('webhooks')
    .description('outbound webhook subscriptions (campaign.sent deliveries, signed)');

  hooks
    .command('subscribe')
    .description('subscribe a URL and print its whsec_ signing secret, once')
    .addOption(accountOption())
    .requiredOption('--url <url>', 'receiver URL (http or https)', httpUrl)
    .action(async (o: { account: string; url: string }) => {
      const ctx = context();
      const { id, secret } = await createWebhookSubscription(await ctx.db(), o.account, o.url);
      ctx.out(
        { id, account_id: o.account, url: o.url, secret },
        `Subscribed ${o.url} (subscription ${id})\n` +
          `Signing secret (shown once; verify X-Service-Signature = hex HMAC-SHA256 of the body):\n${secret}`,
      );
    });

  hooks
    .command('list')
    .description('list the subscriptions of an account (secrets are never shown again)')
    .addOption(accountOption())
    .action(async (o: { account: string }) => {
      const ctx = context();
      const db = await ctx.db();
      await describeAccount(db, o.account);
      const rows = (await listWebhookSubscriptions(db, o.account)).map((s) => ({
        id: s.id,
        url: s.url,
        status: s.disabled_at ? 'removed' : 'active',
        created_at: iso(s.created_at),
        removed_at: iso(s.disabled_at),
      }));
      ctx.out(rows, () =>
        rows.length
          ? table(
              ['ID', 'STATUS', 'CREATED', 'URL'],
              rows.map((s) => [s.id, s.status, when(s.created_at), s.url]),
            )
          : `No subscriptions: holdfast webhooks subscribe --account ${o.account} --url <url>`,
      );
    });

  hooks
    .command('remove')
    .description('stop deliveries to a subscription')
    .argument('<subscription-id>', 'subscription id', uuid)
    .action(async (id: string) => {
      const ctx = context();
      await disableWebhookSubscription(await ctx.db(), id);
      ctx.out({ id, status: 'removed' }, `Removed subscription ${id}`);
    });
};

/** `holdfast providers ...`: the email and SMS providers campaigns are sent through. */
export const registerProviders: RegisterCommand = (program, context) => {
  const providers = program.command('providers').description('email and SMS providers for campaign sends');

  providers
    .command('connect')
    .description('connect (or re-point) a provider: sends of its channel go to the endpoint')
    .addOption(accountOption())
    .requiredOption('--provider <name>', 'provider name, e.g. postmark or twilio')
    .addOption(
      new Option('--channel <channel>', 'email or sms').choices(['email', 'sms']).makeOptionMandatory(),
    )
    .requiredOption('--endpoint <url>', 'send endpoint URL (http or https)', httpUrl)
    .action(async (o: { account: string; provider: string; channel: 'email' | 'sms'; endpoint: string }) => {
      const ctx = context();
      await connectProvider(await ctx.db(), o.account, o.provider, o.channel, o.endpoint);
      ctx.out(
        { account_id: o.account, provider: o.provider, channel: o.channel, endpoint_url: o.endpoint },
        `Connected ${o.provider} (${o.channel}) for ${o.account} -> ${o.endpoint}`,
      );
    });

  providers
    .command('list')
    .description('list the providers of an account')
    .addOption(accountOption())
    .action(async (o: { account: string }) => {
      const ctx = context();
      const db = await ctx.db();
      await describeAccount(db, o.account);
      const rows = (await listProviders(db, o.account)).map((p) => ({
        provider: p.provider,
        channel: p.channel,
        endpoint_url: p.endpoint_url,
        connected_at: iso(p.connected_at),
      }));
      ctx.out(rows, () =>
        rows.length
          ? table(
              ['PROVIDER', 'CHANNEL', 'CONNECTED', 'ENDPOINT'],
              rows.map((p) => [p.provider, p.channel, when(p.connected_at), p.endpoint_url]),
            )
          : `No providers: holdfast providers connect --account ${o.account} --provider <name> --channel email --endpoint <url>`,
      );
    });
};
