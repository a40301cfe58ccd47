import { DEFAULT_FREQUENCY_CAP } from '@holdfast/domain';
import { readCampaignSettings } from '@holdfast/campaign-store';
import type { Pool } from '@holdfast/postgres';

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
  const s = await readCampaignSettings(pool, accountId);
  return {
    enabledTypes: new Set(s.types.filter((t) => t.enabled).map((t) => t.campaignType)),
    frequencyCap: {
      messages: s.frequencyCap?.messages ?? DEFAULT_FREQUENCY_CAP.messages,
      days: s.frequencyCap?.days ?? DEFAULT_FREQUENCY_CAP.days,
    },
    sandbox: s.sandbox,
  };
}
