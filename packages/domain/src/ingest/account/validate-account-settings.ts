import { httpValidators } from '@holdfast/contracts/http';
import type { AccountSettingsInput } from '@holdfast/contracts';
import { toValidationIssues } from '../shared/validation-issue.js';
import type { Validated } from '../shared/validation-issue.js';

// IANA areas of "Area/Location" names. Names outside them (CST, EST5EDT, PST8PDT, GMT, US/Eastern,
// Japan) are POSIX-style abbreviations or legacy links, which the spec's 422 rule targets.
const IANA_AREAS = new Set([
  'Africa',
  'America',
  'Antarctica',
  'Arctic',
  'Asia',
  'Atlantic',
  'Australia',
  'Europe',
  'Indian',
  'Pacific',
  'Etc',
]);
const SEGMENT = /^[A-Z][A-Za-z0-9_+-]*$/;
const SUPPORTED = new Set(Intl.supportedValuesOf('timeZone'));

/**
 * True for an IANA timezone name: 'UTC', or an Area/Location name (exact case) that the runtime's
 * time-zone database knows. Why not only `Intl.supportedValuesOf('timeZone')`: it lists ICU's
 * canonical ids, which omit current IANA names such as Asia/Kolkata or Europe/Kyiv (ICU keeps
 * Asia/Calcutta, Europe/Kiev) and omits UTC; both spellings are accepted.
 *
 * @example
 * isIanaTimezone('America/Chicago'); // true
 * isIanaTimezone('CST');             // false
 */
export function isIanaTimezone(name: string): boolean {
  if (name === 'UTC') return true;
  const segments = name.split('/');
  if (segments.length < 2 || !IANA_AREAS.has(segments[0]!) || !segments.every((s) => SEGMENT.test(s)))
    return false;
  if (SUPPORTED.has(name)) return true;
  try {
    new Intl.DateTimeFormat('en-US', { timeZone: name });
    return true;
  } catch {
    return false;
  }
}

/**
 * Validates PATCH /ingest/account: `store_timezone` must be a string of length >= 1 (schema) and an
 * IANA name (`isIanaTimezone`); otherwise a 422 whose entry for a non-IANA name is
 * `{loc: ['body', 'store_timezone'], type: 'value_error', msg: "Value error, 'CST' is not an IANA timezone name (for example America/Chicago)", input: 'CST'}`.
 * The name is stored as sent (not canonicalised).
 *
 * @example
 * validateAccountSettings({ store_timezone: 'Europe/Berlin' }); // { ok: true, settings: { store_timezone: 'Europe/Berlin' } }
 */
export function validateAccountSettings(body: unknown): Validated<{ settings: AccountSettingsInput }> {
  const validate = httpValidators.accountSettings;
  if (!validate(body)) return { ok: false, detail: toValidationIssues(validate.errors, body) };
  const { store_timezone } = body as AccountSettingsInput;
  if (!isIanaTimezone(store_timezone)) {
    return {
      ok: false,
      detail: [
        {
          type: 'value_error',
          loc: ['body', 'store_timezone'],
          msg: `Value error, '${store_timezone}' is not an IANA timezone name (for example America/Chicago)`,
          input: store_timezone,
        },
      ],
    };
  }
  return { ok: true, settings: { store_timezone } };
}
