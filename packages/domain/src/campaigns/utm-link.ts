/** The utm_source of every link the service builds (spec, general rule 8: the service's own name). */
export const UTM_SOURCE = 'holdfast';

/**
 * The call-to-action URL of one message (design, "Campaigns"): the account's storefront domain (already
 * normalised: a host name, no scheme or path), https, with utm_source=holdfast, utm_medium=<channel>,
 * utm_campaign=<type>, utm_content=<tracking id>.
 *
 * @example
 * utmLink('shop.example.com', { channel: 'email', campaignType: 'win_back', trackingId: 'hft_01' });
 * // 'https://shop.example.com/?utm_source=holdfast&utm_medium=email&utm_campaign=win_back&utm_content=hft_01'
 */
export function utmLink(
  storefrontHost: string,
  tag: { readonly channel: string; readonly campaignType: string; readonly trackingId: string },
): string {
  const url = new URL(`https://${storefrontHost}/`);
  if (url.host !== storefrontHost.toLowerCase() || url.pathname !== '/')
    throw new Error(`"${storefrontHost}" is not a bare storefront host name`);
  url.searchParams.set('utm_source', UTM_SOURCE);
  url.searchParams.set('utm_medium', tag.channel);
  url.searchParams.set('utm_campaign', tag.campaignType);
  url.searchParams.set('utm_content', tag.trackingId);
  return url.toString();
}
