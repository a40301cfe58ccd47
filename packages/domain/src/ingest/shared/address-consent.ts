import { blankToNull, isPlainObject } from './text.js';

/** A postal address as stored. */
export interface NormalizedAddress {
  street: string | null;
  city: string | null;
  state: string | null;
  zip: string | null;
  country: string;
}

/** Consent flags; a `null` key means "omitted: keep the current value". */
export interface NormalizedConsent {
  marketing_email: boolean | null;
  sms: boolean | null;
  suppressed: boolean | null;
  bounced: boolean | null;
}

const str = (v: unknown) => (typeof v === 'string' ? blankToNull(v) : null);
const bool = (v: unknown) => (typeof v === 'boolean' ? v : null);

/**
 * Address as stored (spec "Customer row"): `null` unless street, city or zip is present (non-blank);
 * country defaults to 'US'. Non-string values (possible only in free-form webhook bodies) count as absent.
 *
 * @example
 * normalizeAddress({ state: 'CA' });                // null
 * normalizeAddress({ city: 'Austin', state: 'TX' }); // { street: null, city: 'Austin', state: 'TX', zip: null, country: 'US' }
 */
export function normalizeAddress(value: unknown): NormalizedAddress | null {
  if (!isPlainObject(value)) return null;
  const street = str(value.street);
  const city = str(value.city);
  const zip = str(value.zip);
  if (street === null && city === null && zip === null) return null;
  return { street, city, state: str(value.state), zip, country: str(value.country) ?? 'US' };
}

/**
 * Consent as stored: booleans only; a missing, null (or, in free-form bodies, non-boolean) key is
 * `null` = keep current. `null` overall when the object is absent or sets no key, so consumers can
 * skip the consent merge entirely.
 *
 * @example
 * normalizeConsent({ sms: false }); // { marketing_email: null, sms: false, suppressed: null, bounced: null }
 */
export function normalizeConsent(value: unknown): NormalizedConsent | null {
  if (!isPlainObject(value)) return null;
  const consent = {
    marketing_email: bool(value.marketing_email),
    sms: bool(value.sms),
    suppressed: bool(value.suppressed),
    bounced: bool(value.bounced),
  };
  const anySet =
    consent.marketing_email !== null ||
    consent.sms !== null ||
    consent.suppressed !== null ||
    consent.bounced !== null;
  return anySet ? consent : null;
}
