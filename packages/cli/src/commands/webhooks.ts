import { Option } from 'commander';
import {
  connectProvider,
  ControlPlaneError,
  createWebhookSubscription,
  describeAccount,
  disableWebhookSubscription,
  listProviders,
  listWebhookSubscriptions,
  rotateWebhookSecret,
} from '@holdfast/control-plane';
import {
  listDeliveries,
  listQuarantined,
  redeliver,
  unquarantineSubscription,
  type DeliveryListing,
} from '@holdfast/webhook-deliveries';
import { checkOutboundUrl, EnvReader, readOutboundPolicy } from '@holdfast/platform';
import { CliError, type CliContext } from '../context.js';
import { accountOption, httpUrl, iso, parseDuration, table, uuid, when } from '../format.js';
import type { RegisterCommand } from './index.js';
import { registerProviderSettings } from './provider-settings.js';
import { keyringFor } from './secrets.js';

/**
 * Refuses a receiver or provider URL the dispatcher would refuse anyway (http, a literal private or
 * loopback address, credentials), at once and with the reason, rather than as failed deliveries later.
 * The same policy as the services: HOLDFAST_OUTBOUND_ALLOW(_HTTP) open local receivers in development.
 */
function checkDestination(ctx: CliContext, url: string): void {
  const problem = checkOutboundUrl(url, readOutboundPolicy(new EnvReader(ctx.env)));
  if (problem)
    throw new ControlPlaneError(
      'invalid',
      `refusing ${url}: ${problem}. Outbound calls go to public https URLs only ` +
        `(HOLDFAST_OUTBOUND_ALLOW and HOLDFAST_OUTBOUND_ALLOW_HTTP open local receivers in development)`,
    );
}

/** The delivery log lives in the dispatcher's schema, which exists once a dispatcher has started. */
async function withDeliveryLog<T>(work: () => Promise<T>): Promise<T> {
  try {
    return await work();
  } catch (err) {
    if ((err as { code?: string }).code === '42P01')
      throw new CliError('no delivery log yet: no dispatcher has started against this database', 3);
    throw err;
  }
}

const attemptLine = (a: DeliveryListing['attempt_log'][number]): string =>
  `    #${a.attempt} ${when(iso(a.attempted_at))} ${a.succeeded ? 'ok' : 'failed'} ` +
  `${a.status_code ?? '-'} ${a.error ?? ''}`.trimEnd();

/** `holdfast webhooks ...`: outbound webhook subscriptions (campaign.sent, signed with a whsec_ secret). */
export const registerWebhooks: RegisterCommand = (program, context) => {
  const hooks = program
    .command('webhooks')
    .description('outbound webhook subscriptions (campaign.sent deliveries, signed)');

  hooks
    .command('subscribe')
    .description('subscribe a URL and print its whsec_ signing secret, once')
    .addOption(accountOption())
    .requiredOption('--url <url>', 'receiver URL (public https)', httpUrl)
    .action(async (o: { account: string; url: string }) => {
      const ctx = context();
      checkDestination(ctx, o.url);
      const { id, secret } = await createWebhookSubscription(
        await ctx.db(),
        o.account,
        o.url,
        keyringFor(ctx),
      );
      ctx.out(
        { id, account_id: o.account, url: o.url, secret },
        `Subscribed ${o.url} (subscription ${id})\n` +
          `Signing secret (shown once; verify X-Service-Signature = hex HMAC-SHA256 of the body):\n${secret}`,
      );
    });

  hooks
    .command('rotate-secret')
    .description('issue a new whsec_ secret, shown once; the old one keeps signing for the grace window')
    .argument('<subscription-id>', 'subscription id', uuid)
    .addOption(
      new Option('--grace <duration>', 'how long the old secret keeps signing (90s, 15m, 24h, 7d)')
        .argParser(parseDuration)
        .default(86_400, '24h'),
    )
    .action(async (id: string, o: { grace: number }) => {
      const ctx = context();
      const r = await rotateWebhookSecret(await ctx.db(), id, o.grace, keyringFor(ctx));
      ctx.out(
        { id, secret: r.secret, previous_secret_expires_at: iso(r.previousExpiresAt) },
        `Rotated the secret of ${id}: until ${when(iso(r.previousExpiresAt))} deliveries carry both ` +
          `signatures in webhook-signature (X-Service-Signature uses the new one)\n` +
          `New signing secret (shown once):\n${r.secret}`,
      );
    });

  hooks
    .command('deliveries')
    .description('list the deliveries of a subscription with their attempts, newest first')
    .argument('<subscription-id>', 'subscription id', uuid)
    .addOption(
      new Option('--status <status>', 'only this status').choices([
        'pending',
        'delivered',
        'failed',
        'cancelled',
      ]),
    )
    .option(
      '--limit <n>',
      'at most this many (1-500)',
      (v) => Math.min(500, Math.max(1, Number(v) || 50)),
      50,
    )
    .action(async (id: string, o: { status?: DeliveryListing['status']; limit: number }) => {
      const ctx = context();
      const db = await ctx.db();
      const rows = await withDeliveryLog(() => listDeliveries(db, id, { status: o.status, limit: o.limit }));
      const json = rows.map((d) => ({
        ...d,
        created_at: iso(d.created_at),
        delivered_at: iso(d.delivered_at),
        next_attempt_at: iso(d.next_attempt_at),
        attempt_log: d.attempt_log.map((a) => ({ ...a, attempted_at: iso(a.attempted_at) })),
      }));
      ctx.out(json, () =>
        rows.length
          ? rows
              .map(
                (d) =>
                  `${d.delivery_id}  ${d.status}  ${d.event}  ${d.tracking_id}  attempts ${d.attempts}` +
                  (d.next_attempt_at ? `  next ${when(iso(d.next_attempt_at))}` : '') +
                  d.attempt_log.map((a) => `\n${attemptLine(a)}`).join(''),
              )
              .join('\n')
          : `No deliveries${o.status ? ` with status ${o.status}` : ''} for subscription ${id}`,
      );
    });

  hooks
    .command('redeliver')
    .description(
      'attempt failed deliveries once more, now: one (--delivery) or all failed ones (--all-failed)',
    )
    .argument('<subscription-id>', 'subscription id', uuid)
    .option('--delivery <delivery-id>', 'the failed delivery to send again', uuid)
    .option('--all-failed', 'every failed delivery of the subscription')
    .action(async (id: string, o: { delivery?: string; allFailed?: boolean }) => {
      const ctx = context();
      if (!o.delivery === !o.allFailed)
        throw new ControlPlaneError('invalid', 'give either --delivery <delivery-id> or --all-failed');
      const db = await ctx.db();
      const ids = await withDeliveryLog(() => redeliver(db, { subscriptionId: id, deliveryId: o.delivery }));
      ctx.out(
        { subscription_id: id, scheduled: ids },
        ids.length
          ? `Scheduled ${ids.length} deliver${ids.length === 1 ? 'y' : 'ies'} for one more attempt now:\n${ids.join('\n')}`
          : `No failed deliveries for subscription ${id}`,
      );
    });

  hooks
    .command('quarantined')
    .description('list the subscriptions the dispatcher quarantined (deliveries parked), with why and since')
    .option('--account <account-id>', 'only this account', uuid)
    .action(async (o: { account?: string }) => {
      const ctx = context();
      const db = await ctx.db();
      const rows = (await withDeliveryLog(() => listQuarantined(db, o.account))).map((q) => ({
        ...q,
        since: iso(q.since),
      }));
      ctx.out(rows, () =>
        rows.length
          ? table(
              ['SUBSCRIPTION', 'ACCOUNT', 'SINCE', 'REASON'],
              rows.map((q) => [q.subscription_id, q.account_id, when(q.since), q.reason]),
            )
          : 'No quarantined subscriptions',
      );
    });

  hooks
    .command('unquarantine')
    .description('lift the quarantine of a subscription (fix its cause first): its parked deliveries resume')
    .argument('<subscription-id>', 'subscription id', uuid)
    .action(async (id: string) => {
      const ctx = context();
      const db = await ctx.db();
      const { lifted, resumed } = await withDeliveryLog(() => unquarantineSubscription(db, id));
      ctx.out(
        { id, reason: lifted.reason, since: iso(lifted.since), resumed },
        `Lifted the quarantine of ${id} (since ${when(iso(lifted.since))}: ${lifted.reason}); ` +
          `${resumed} parked deliver${resumed === 1 ? 'y is' : 'ies are'} due now`,
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
        event_types: s.event_types,
        status: s.disabled_at ? 'removed' : 'active',
        created_at: iso(s.created_at),
        removed_at: iso(s.disabled_at),
      }));
      ctx.out(rows, () =>
        rows.length
          ? table(
              ['ID', 'STATUS', 'CREATED', 'EVENTS', 'URL'],
              rows.map((s) => [s.id, s.status, when(s.created_at), s.event_types.join(','), s.url]),
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
    .requiredOption('--endpoint <url>', 'send endpoint URL (public https)', httpUrl)
    .action(async (o: { account: string; provider: string; channel: 'email' | 'sms'; endpoint: string }) => {
      const ctx = context();
      checkDestination(ctx, o.endpoint);
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
        kind: p.kind,
        endpoint_url: p.endpoint_url,
        connected_at: iso(p.connected_at),
      }));
      ctx.out(rows, () =>
        rows.length
          ? table(
              ['PROVIDER', 'CHANNEL', 'KIND', 'CONNECTED', 'ENDPOINT'],
              rows.map((p) => [p.provider, p.channel, p.kind, when(p.connected_at), p.endpoint_url]),
            )
          : `No providers: holdfast providers set-email --account ${o.account} ... (or set-sms)`,
      );
    });

  registerProviderSettings(providers, context, checkDestination);
};
