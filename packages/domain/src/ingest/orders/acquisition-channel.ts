/** The acquisition channel of an order whose `source` carries a full landing URL (spec rule 10). */
export const CAMPAIGN_CHANNEL = 'campaign';

// A full landing URL: an absolute http(s) URL with a host. A bare label ("email", "paid_social") or
// a path without scheme and host is a label, whatever it contains.
const LANDING_URL = /^https?:\/\/[^\s/?#]+/i;

/** Whether `source` is a full landing URL (absolute http or https, with a host). */
export function isLandingUrl(source: string): boolean {
  return LANDING_URL.test(source.trim());
}

/**
 * The acquisition channel stored on an order for analysts (spec rule 10: "source must carry the
 * acquisition channel. If a full landing URL is placed in source, it is classified as the campaign
 * channel and overrides the true acquisition channel"): `campaign` when `source` is a full landing
 * URL, else the source label itself (trimmed); null when there is no source. The original `source`
 * is kept beside it unchanged.
 *
 * @example
 * acquisitionChannel('paid_social'); // 'paid_social'
 * acquisitionChannel('https://shop.example/?utm_content=t1'); // 'campaign'
 * acquisitionChannel(null); // null
 */
export function acquisitionChannel(source: string | null): string | null {
  if (source === null) return null;
  const label = source.trim();
  if (!label) return null;
  return isLandingUrl(label) ? CAMPAIGN_CHANNEL : label;
}
