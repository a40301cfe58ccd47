import { normalizeStorefrontDomain } from '@holdfast/db';
import type { CampaignType, Channel } from './campaign-types.js';

/** The utm_source of every link the service builds (spec, general rule 8: the service's own name). */
export const UTM_SOURCE = 'holdfast';

/**
 * The call-to-action URL of one message: the account's storefront, with utm_source=holdfast,
 * utm_medium=<channel>, utm_campaign=<type>, utm_content=<tracking id>.
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
  const url = new URL(`https://${normalizeStorefrontDomain(storefrontDomain)}/`);
  url.searchParams.set('utm_source', UTM_SOURCE);
  url.searchParams.set('utm_medium', channel);
  url.searchParams.set('utm_campaign', campaignType);
  url.searchParams.set('utm_content', trackingId);
  return url.toString();
}
