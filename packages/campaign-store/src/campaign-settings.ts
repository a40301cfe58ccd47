// The campaign settings an operator sets (`holdfast campaigns enable|disable|cap`) and the recompute's
// campaign step reads, and the lift reports the CLI lists: typed queries on the campaign tables, which
// the recompute service's migrations create (a table that does not exist yet fails with 42P01).
import { sql, type Kysely, type Selectable } from 'kysely';
import type { CampaignTables, LiftReportsTable } from './campaign-tables.js';
import { createDb, type Database, type Pool } from '@holdfast/postgres';

type CampaignDatabase = Pick<Database, 'control.accounts'> & CampaignTables;

const instances = new WeakMap<Pool, Kysely<CampaignDatabase>>();

/** The kysely instance over the pool (one per pool: never destroyed, the pool's owner ends the pool). */
function campaignDb(pool: Pool): Kysely<CampaignDatabase> {
  let db = instances.get(pool);
  if (!db) instances.set(pool, (db = createDb(pool) as unknown as Kysely<CampaignDatabase>));
  return db;
}

/** A type switched on or off for an account (analytics.campaign_type_settings). */
export interface CampaignTypeSetting {
  readonly campaignType: string;
  readonly enabled: boolean;
  readonly changedAt: Date;
}

/** What is stored of an account's campaign settings; the caller applies the defaults. */
export interface StoredCampaignSettings {
  /** control.accounts.is_sandbox; false for an unknown account. */
  readonly sandbox: boolean;
  /** Every type an operator ever switched, on or off, by type name; a type without a row is off. */
  readonly types: readonly CampaignTypeSetting[];
  /** analytics.campaign_account_settings; null when never set. */
  readonly frequencyCap: { readonly messages: number; readonly days: number } | null;
}

/** Reads an account's campaign settings: three key lookups, run side by side on the pool. */
export async function readCampaignSettings(pool: Pool, accountId: string): Promise<StoredCampaignSettings> {
  const db = campaignDb(pool);
  const [account, types, cap] = await Promise.all([
    db.selectFrom('control.accounts').select('is_sandbox').where('id', '=', accountId).executeTakeFirst(),
    db
      .selectFrom('analytics.campaign_type_settings')
      .select(['campaign_type', 'enabled', 'changed_at'])
      .where('account_id', '=', accountId)
      .orderBy('campaign_type')
      .execute(),
    db
      .selectFrom('analytics.campaign_account_settings')
      .select(['frequency_cap_messages', 'frequency_cap_days'])
      .where('account_id', '=', accountId)
      .executeTakeFirst(),
  ]);
  return {
    sandbox: account?.is_sandbox === true,
    types: types.map((t) => ({
      campaignType: t.campaign_type,
      enabled: t.enabled,
      changedAt: t.changed_at,
    })),
    frequencyCap: cap ? { messages: cap.frequency_cap_messages, days: cap.frequency_cap_days } : null,
  };
}

/** Switches a campaign type on or off for an account (it takes effect at the next sending run). */
export async function setCampaignTypeEnabled(
  pool: Pool,
  accountId: string,
  campaignType: string,
  enabled: boolean,
): Promise<void> {
  await campaignDb(pool)
    .insertInto('analytics.campaign_type_settings')
    .values({ account_id: accountId, campaign_type: campaignType, enabled, changed_at: sql`now()` })
    .onConflict((oc) =>
      oc.columns(['account_id', 'campaign_type']).doUpdateSet((eb) => ({
        enabled: eb.ref('excluded.enabled'),
        changed_at: eb.ref('excluded.changed_at'),
      })),
    )
    .execute();
}

/** Sets an account's frequency cap across all campaign types. */
export async function setFrequencyCap(
  pool: Pool,
  accountId: string,
  cap: { readonly messages: number; readonly days: number },
): Promise<void> {
  await campaignDb(pool)
    .insertInto('analytics.campaign_account_settings')
    .values({
      account_id: accountId,
      frequency_cap_messages: cap.messages,
      frequency_cap_days: cap.days,
      changed_at: sql`now()`,
    })
    .onConflict((oc) =>
      oc.column('account_id').doUpdateSet((eb) => ({
        frequency_cap_messages: eb.ref('excluded.frequency_cap_messages'),
        frequency_cap_days: eb.ref('excluded.frequency_cap_days'),
        changed_at: eb.ref('excluded.changed_at'),
      })),
    )
    .execute();
}

const LIFT_REPORT_COLUMNS = [
  'campaign_type',
  'period_start',
  'period_end',
  'treated_customers',
  'holdout_customers',
  'lift',
  'ci_low',
  'ci_high',
  'p_value_greater',
  'billable_revenue',
  'mde',
  'settlement_status',
  'settles_at',
  'final_billable_revenue',
] as const;

/** A lift report as the operator sees it (`holdfast campaigns lift`), its columns in this order. */
export type LiftReportListing = Pick<Selectable<LiftReportsTable>, (typeof LIFT_REPORT_COLUMNS)[number]>;

/** An account's lift reports, of one campaign type or all, newest period first. */
export async function listLiftReports(
  pool: Pool,
  accountId: string,
  campaignType?: string,
): Promise<LiftReportListing[]> {
  let q = campaignDb(pool)
    .selectFrom('analytics.lift_reports')
    .select(LIFT_REPORT_COLUMNS)
    .where('account_id', '=', accountId);
  if (campaignType !== undefined) q = q.where('campaign_type', '=', campaignType);
  return q.orderBy('period_start', 'desc').orderBy('campaign_type').execute();
}
