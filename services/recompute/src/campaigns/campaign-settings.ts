import { DEFAULT_FREQUENCY_CAP } from '@holdfast/domain';
import type { Pool } from '@holdfast/db';
import { recomputeDb } from '../recompute-database.js';

/** An account's campaign settings (analytics.campaign_type_settings, campaign_account_settings, control.accounts). */
export interface AccountCampaignSettings {
  /** Types an operator enabled; none by default. */
  readonly enabledTypes: ReadonlySet<string>;
  readonly frequencyCap: { readonly messages: number; readonly days: number };
  /** control.accounts.is_sandbox (the account takes tk_test_ keys). */
  readonly sandbox: boolean;
}

/** Reads an account's campaign settings; defaults for what was never set (nothing enabled, 1 per 7 days). */
export async function loadCampaignSettings(pool: Pool, accountId: string): Promise<AccountCampaignSettings> {
  const r = await recomputeDb(pool)
    .selectNoFrom((eb) => [
      eb.selectFrom('control.accounts').select('is_sandbox').where('id', '=', accountId).as('is_sandbox'),
      eb
        .selectFrom('analytics.campaign_type_settings')
        .select((t) =>
          t.fn.agg<string[]>('array_agg', ['campaign_type']).orderBy('campaign_type').as('types'),
        )
        .where('account_id', '=', accountId)
        .where('enabled', '=', true)
        .as('enabled'),
      eb
        .selectFrom('analytics.campaign_account_settings')
        .select('frequency_cap_messages')
        .where('account_id', '=', accountId)
        .as('cap_messages'),
      eb
        .selectFrom('analytics.campaign_account_settings')
        .select('frequency_cap_days')
        .where('account_id', '=', accountId)
        .as('cap_days'),
    ])
    .executeTakeFirst();
  return {
    enabledTypes: new Set(r?.enabled ?? []),
    frequencyCap: {
      messages: r?.cap_messages ?? DEFAULT_FREQUENCY_CAP.messages,
      days: r?.cap_days ?? DEFAULT_FREQUENCY_CAP.days,
    },
    sandbox: r?.is_sandbox === true,
  };
}
