/**
 * The campaign types the recompute builds audiences for, in order of precedence (docs/analytics.md,
 * "Campaign audiences"); the CLI offers the same list to enable, disable and report on.
 */
export const CAMPAIGN_TYPES = ['win_back', 'replenishment', 'vip'] as const;

export type CampaignType = (typeof CAMPAIGN_TYPES)[number];

export function isCampaignType(value: string): value is CampaignType {
  return (CAMPAIGN_TYPES as readonly string[]).includes(value);
}
