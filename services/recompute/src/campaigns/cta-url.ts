import { normalizeStorefrontDomain } from '@holdfast/control-plane';
import { utmLink, type CampaignType } from '@holdfast/domain';
import type { Channel } from './campaign-types.js';

export { UTM_SOURCE } from '@holdfast/domain';

/**
 * The call-to-action URL of one message: the account's storefront, with utm_source=holdfast,
 * utm_medium=<channel>, utm_campaign=<type>, utm_content=<tracking id> (the rule: `utmLink`).
 *
 * @example
 * buildCtaUrl('shop.example.com', 'email', 'win_back', 'hft_0123456789abcdef01234567');
 * // 'https://shop.example.com/?utm_source=holdfast&utm_medium=email&utm_campaign=win_back&utm_content=hft_0123456789abcdef01234567'
 */
export function buildCtaUrl(
  storefrontDomain: string,
  channel: Channel,
  campaignType: CampaignType,
  trackingId: string,
): string {
  return utmLink(normalizeStorefrontDomain(storefrontDomain), { channel, campaignType, trackingId });
}
