import { Argument, Option } from 'commander';
import { describeAccount } from '@holdfast/control-plane';
import {
  listLiftReports,
  readCampaignSettings,
  setCampaignTypeEnabled,
  setFrequencyCap,
} from '@holdfast/campaign-store';
import { CAMPAIGN_TYPES, DEFAULT_FREQUENCY_CAP } from '@holdfast/domain';
import { CliError, type CliContext } from '../context.js';
import { accountOption, iso, positiveInt, table, when } from '../format.js';
import type { RegisterCommand } from './index.js';
import { queueCliSync } from './sync.js';

function typeArgument(): Argument {
  return new Argument('<type>', 'campaign type').choices(CAMPAIGN_TYPES);
}

/**
 * Runs a query on the campaign tables, which the recompute service creates when it first starts: their
 * absence (42P01) is a step the operator has not taken yet, said so.
 */
async function onCampaignTables<R>(run: () => Promise<R>): Promise<R> {
  try {
    return await run();
  } catch (err) {
    if ((err as { code?: string }).code === '42P01')
      throw new CliError(
        'the campaign tables do not exist yet: start the recompute service once (`npm start`), it creates them',
      );
    throw err;
  }
}

interface CampaignSettingsView {
  account_id: string;
  sandbox: boolean;
  frequency_cap: { messages: number; days: number };
  types: { type: string; enabled: boolean; changed_at: string | null }[];
}

async function settingsView(ctx: CliContext, accountId: string): Promise<CampaignSettingsView> {
  const db = await ctx.db();
  const account = await describeAccount(db, accountId);
  const stored = await onCampaignTables(() => readCampaignSettings(ctx.pool(), accountId));
  const cap = stored.frequencyCap ?? DEFAULT_FREQUENCY_CAP;
  return {
    account_id: accountId,
    sandbox: account.is_sandbox,
    frequency_cap: { messages: cap.messages, days: cap.days },
    types: CAMPAIGN_TYPES.map((type) => {
      const row = stored.types.find((t) => t.campaignType === type);
      return { type, enabled: row?.enabled === true, changed_at: iso(row?.changedAt) };
    }),
  };
}

function printSettings(ctx: CliContext, v: CampaignSettingsView, headline: string): void {
  ctx.out(v, () =>
    [
      headline,
      `frequency cap: at most ${v.frequency_cap.messages} message(s) per customer per ${v.frequency_cap.days} day(s), all types`,
      v.sandbox ? 'sandbox account: sends are simulated and recorded, never sent' : 'live account',
      table(
        ['TYPE', 'ENABLED', 'CHANGED'],
        v.types.map((t) => [t.type, t.enabled ? 'yes' : 'no', when(t.changed_at)]),
      ),
    ].join('\n'),
  );
}

/**
 * `holdfast campaigns ...`: which campaign types an account sends (all off by default), its frequency
 * cap, an explicit send run, and the lift report with its minimum detectable effect (docs/campaigns.md).
 */
export const registerCampaigns: RegisterCommand = (program, context) => {
  const campaigns = program
    .command('campaigns')
    .description('campaign sends: enable types, frequency cap, run, lift report');

  for (const [verb, enabled] of [
    ['enable', true],
    ['disable', false],
  ] as const) {
    campaigns
      .command(verb)
      .description(`${verb} a campaign type for an account (takes effect at the next sending run)`)
      .addOption(accountOption())
      .addOption(new Option('--type <type>', 'campaign type').choices(CAMPAIGN_TYPES).makeOptionMandatory())
      .action(async (o: { account: string; type: string }) => {
        const ctx = context();
        await describeAccount(await ctx.db(), o.account);
        await onCampaignTables(() => setCampaignTypeEnabled(ctx.pool(), o.account, o.type, enabled));
        printSettings(
          ctx,
          await settingsView(ctx, o.account),
          `${enabled ? 'Enabled' : 'Disabled'} ${o.type} for ${o.account}`,
        );
      });
  }

  campaigns
    .command('list')
    .description('the campaign types of an account (enabled or not), its frequency cap and sandbox state')
    .addOption(accountOption())
    .action(async (o: { account: string }) => {
      const ctx = context();
      printSettings(ctx, await settingsView(ctx, o.account), `Campaigns of ${o.account}`);
    });

  campaigns
    .command('cap')
    .description('set the frequency cap across all types (default: 1 message per customer per 7 days)')
    .addOption(accountOption())
    .requiredOption('--messages <n>', 'messages per customer per window', positiveInt)
    .requiredOption('--days <n>', 'window in days', positiveInt)
    .action(async (o: { account: string; messages: number; days: number }) => {
      const ctx = context();
      await describeAccount(await ctx.db(), o.account);
      await onCampaignTables(() =>
        setFrequencyCap(ctx.pool(), o.account, { messages: o.messages, days: o.days }),
      );
      printSettings(ctx, await settingsView(ctx, o.account), `Frequency cap of ${o.account} set`);
    });

  campaigns
    .command('run')
    .description('queue a recompute that sends (like the nightly run; POST /ingest/sync never sends)')
    .addOption(accountOption())
    .action(async (o: { account: string }) => {
      const ctx = context();
      const task = await queueCliSync(ctx, o.account, 'the command');
      ctx.out(
        { task_id: task.id, account_id: o.account, status: 'queued', trigger: 'cli', sends: true },
        `Queued sending run ${task.id} for ${o.account} (only enabled types send; see \`holdfast campaigns list\`)`,
      );
    });

  campaigns
    .command('lift')
    .description(
      'lift reports per type and month: lift, interval, billing, settlement, minimum detectable effect',
    )
    .addOption(accountOption())
    .addArgument(typeArgument().argOptional())
    .action(async (type: string | undefined, o: { account: string }) => {
      const ctx = context();
      await describeAccount(await ctx.db(), o.account);
      const rows = await onCampaignTables(() => listLiftReports(ctx.pool(), o.account, type));
      const money = (v: unknown): string => (typeof v === 'number' ? v.toFixed(2) : '-');
      ctx.out(
        rows.map((r) => ({
          ...r,
          period_start: iso(r.period_start),
          period_end: iso(r.period_end),
          settles_at: iso(r.settles_at),
        })),
        () =>
          rows.length
            ? table(
                [
                  'TYPE',
                  'MONTH',
                  'TREATED',
                  'HOLDOUT',
                  'LIFT/CUST',
                  '95% CI',
                  'MDE/CUST',
                  'BILLABLE',
                  'SETTLEMENT',
                ],
                rows.map((r) => [
                  String(r.campaign_type),
                  when(r.period_start).slice(0, 7),
                  String(r.treated_customers),
                  String(r.holdout_customers),
                  money(r.lift),
                  r.ci_low === null ? '-' : `[${money(r.ci_low)}, ${money(r.ci_high)}]`,
                  money(r.mde),
                  money(r.billable_revenue),
                  r.settlement_status === 'final'
                    ? 'final'
                    : `provisional until ${when(r.settles_at).slice(0, 10)}`,
                ]),
              )
            : `No lift reports for ${o.account} yet`,
      );
    });
};
