import { Argument, Option } from 'commander';
import { describeAccount, rawQuery, type Pool } from '@holdfast/db';
import { CliError, type CliContext } from '../context.js';
import { accountOption, iso, positiveInt, table, when } from '../format.js';
import type { RegisterCommand } from './index.js';
import { queueCliSync } from './sync.js';

/** The campaign types of the recompute (services/recompute campaigns/campaign-types.ts, CAMPAIGN_TYPES). */
const CAMPAIGN_TYPES = ['win_back', 'replenishment', 'vip'] as const;
const DEFAULT_CAP = { messages: 1, days: 7 };

function typeArgument(): Argument {
  return new Argument('<type>', 'campaign type').choices(CAMPAIGN_TYPES);
}

/**
 * Runs a named raw query on the campaign tables, which the recompute service creates when it first
 * starts (raw: their kysely types belong to the recompute service, which a package may not import).
 */
async function query<R extends object>(
  pool: Pool,
  name: string,
  text: string,
  values: unknown[],
): Promise<R[]> {
  try {
    return (await rawQuery<R>(pool, name, text, values)).rows;
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
  const pool = ctx.pool();
  const types = await query<{ campaign_type: string; enabled: boolean; changed_at: Date }>(
    pool,
    'campaigns.type-settings',
    `select campaign_type, enabled, changed_at from analytics.campaign_type_settings where account_id = $1`,
    [accountId],
  );
  const [cap] = await query<{ frequency_cap_messages: number; frequency_cap_days: number }>(
    pool,
    'campaigns.account-settings',
    `select frequency_cap_messages, frequency_cap_days from analytics.campaign_account_settings where account_id = $1`,
    [accountId],
  );
  return {
    account_id: accountId,
    sandbox: account.is_sandbox,
    frequency_cap: cap
      ? { messages: cap.frequency_cap_messages, days: cap.frequency_cap_days }
      : { ...DEFAULT_CAP },
    types: CAMPAIGN_TYPES.map((type) => {
      const row = types.find((t) => t.campaign_type === type);
      return { type, enabled: row?.enabled === true, changed_at: iso(row?.changed_at) };
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
        await query(
          ctx.pool(),
          'campaigns.set-type',
          `insert into analytics.campaign_type_settings (account_id, campaign_type, enabled, changed_at)
           values ($1, $2, $3, now())
           on conflict (account_id, campaign_type) do update set enabled = excluded.enabled, changed_at = excluded.changed_at`,
          [o.account, o.type, enabled],
        );
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
      await query(
        ctx.pool(),
        'campaigns.set-cap',
        `insert into analytics.campaign_account_settings (account_id, frequency_cap_messages, frequency_cap_days, changed_at)
         values ($1, $2, $3, now())
         on conflict (account_id) do update set frequency_cap_messages = excluded.frequency_cap_messages,
           frequency_cap_days = excluded.frequency_cap_days, changed_at = excluded.changed_at`,
        [o.account, o.messages, o.days],
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
      const rows = await query<Record<string, unknown>>(
        ctx.pool(),
        'campaigns.lift-reports',
        `select campaign_type, period_start, period_end, treated_customers, holdout_customers, lift, ci_low, ci_high,
                p_value_greater, billable_revenue::float8 as billable_revenue, mde, settlement_status, settles_at,
                final_billable_revenue::float8 as final_billable_revenue
           from analytics.lift_reports
          where account_id = $1 and ($2::text is null or campaign_type = $2)
          order by period_start desc, campaign_type`,
        [o.account, type ?? null],
      );
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
