/** How long a stored error text may be (campaign_assignments.last_error, webhook deliveries). */
export const STORED_ERROR_MAX = 500;

// An address: local part, @, a dotted domain. Wider than what validation accepts on purpose: a
// provider may echo an address in any form, and over-scrubbing an error text loses nothing.
const EMAIL = /[A-Za-z0-9.!#$%&'*+/=?^_`{|}~-]+@[A-Za-z0-9-]+(?:\.[A-Za-z0-9-]+)+/g;
// A phone: digits with the usual separators, starting with + or a digit (or an opening parenthesis).
const PHONE = /(?:\+|\()?\d[\d ().-]{5,}\d/g;
const digits = (s: string) => s.replace(/\D/g, '').length;
// A date (and time) is not a phone: 2026-11-27 10:00 has ten digits.
const ISO_DATE = /^\d{4}-\d{2}-\d{2}/;

const escapeRegExp = (s: string) => s.replace(/[.*+?^${}()|[\]\\]/g, '\\$&');

/**
 * An error text as it may be stored or shown (a provider's answer, a receiver's body): every email
 * address becomes `[email]`, every phone-like number (a leading + and 7 digits or more, or 9 digits
 * or more: an HTTP status, an ISO date or a port stays) `[phone]`, every `known` personal value (the
 * recipient's address, their name) `[redacted]` wherever it appears, case-insensitively; then cut to
 * `max` characters. Provider error text is free-form and may quote the recipient: whatever is stored
 * about a failure must not be personal data an erasure would have to find.
 *
 * @example
 * scrubPersonalText('550 5.1.1 <ann@example.com>: mailbox unavailable'); // '550 5.1.1 <[email]>: mailbox unavailable'
 */
export function scrubPersonalText(
  text: string,
  known: readonly (string | null | undefined)[] = [],
  max = STORED_ERROR_MAX,
): string {
  let out = text;
  for (const k of known) {
    const v = k?.trim();
    // Two characters or fewer would blank ordinary words: such a value is not identifying anyway.
    if (v && v.length > 2) out = out.replace(new RegExp(escapeRegExp(v), 'gi'), '[redacted]');
  }
  out = out.replace(EMAIL, '[email]');
  out = out.replace(PHONE, (m) => {
    const n = digits(m);
    if (ISO_DATE.test(m)) return m;
    return (m.startsWith('+') && n >= 7) || n >= 9 ? '[phone]' : m;
  });
  return out.length > max ? out.slice(0, max) : out;
}
