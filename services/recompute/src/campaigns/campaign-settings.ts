import { DEFAULT_FREQUENCY_CAP } from '@holdfast/domain';
import type { Pool, PoolClient } from '@holdfast/db';

/** An account's campaign settings (analytics.campaign_type_settings, campaign_account_settings, control.accounts). */
export interface AccountCampaignSettings {
  /** Types an operator enabled; none by default. */
  readonly enabledTypes: ReadonlySet<string>;
  readonly frequencyCap: { readonly messages: number; readonly days: number };
  /** control.accounts.is_sandbox (the account takes tk_test_ keys). */
  readonly sandbox: boolean;
}

/** Reads an account's campaign settings; defaults for what was never set (nothing enabled, 1 per 7 days). */
export async function loadCampaignSettings(
  db: Pool | PoolClient,
  accountId: string,
): Promise<AccountCampaignSettings> {
  const { rows } = await db.query<{
    is_sandbox: boolean | null;
    enabled: string[] | null;
    cap_messages: number | null;
    cap_days: number | null;
  }>(
    `select (select is_sandbox from control.accounts where id = $1) as is_sandbox,
            (select array_agg(campaign_type order by campaign_type) from analytics.campaign_type_settings
              where account_id = $1 and enabled) as enabled,
            s.frequency_cap_messages as cap_messages, s.frequency_cap_days as cap_days
       from (select 1) one
       left join analytics.campaign_account_settings s on s.account_id = $1`,
    [accountId],
  );
  const r = rows[0];
  return {
    enabledTypes: new Set(r?.enabled ?? []),
    frequencyCap: {
      messages: r?.cap_messages ?? DEFAULT_FREQUENCY_CAP.messages,
      days: r?.cap_days ?? DEFAULT_FREQUENCY_CAP.days,
    },
    sandbox: r?.is_sandbox === true,
  };
}
