import { Metadata, parsePhoneNumberFromString } from 'libphonenumber-js';

/**
 * Phone numbers to E.164 with default region US, exactly as
 * `parsePhoneNumberFromString(p, 'US')?.isValid()` decides, but fast.
 *
 * Why not just call libphonenumber: one parse + isValid costs ~20 µs (it rebuilds its regular
 * expressions on every call), i.e. ~50k numbers/s, which alone would cap classification below the
 * required 150k rows/s. Nearly all ingest phones are North American, so the common shapes
 * (`+1` + 10 digits, 10 digits, `1` + 10 digits, with spaces, dots, dashes or brackets) take a fast
 * path that applies libphonenumber's own metadata (the same `min` set it uses), compiled once, with its
 * algorithm for calling code 1: pick the first NANP country whose leading digits match, or that
 * recognises the number as some type, then the number is valid if it is a known type there. Every
 * other shape goes to libphonenumber itself. A self-check at load compares both on sample numbers and
 * disables the fast path if they ever disagree (e.g. after a library upgrade changes its internals).
 */

interface TypeInternals {
  pattern(): string;
  possibleLengths(): number[] | undefined;
}
interface MetadataInternals {
  selectNumberingPlan(country: string): void;
  getCountryCodesForCallingCode(code: string): string[] | undefined;
  numberingPlan: {
    leadingDigits(): string | undefined;
    nationalNumberPattern(): string;
    hasTypes(): boolean;
    type(name: string): TypeInternals | undefined;
  };
}

interface CompiledCountry {
  readonly leadingDigits: RegExp | null;
  readonly national: RegExp;
  readonly hasTypes: boolean;
  readonly types: readonly { readonly re: RegExp; readonly lengths: readonly number[] | undefined }[];
}

// libphonenumber's order: FIXED_LINE first, then the non-fixed-line types (see its getNumberType).
const TYPE_NAMES = [
  'FIXED_LINE',
  'MOBILE',
  'PREMIUM_RATE',
  'TOLL_FREE',
  'SHARED_COST',
  'VOIP',
  'PERSONAL_NUMBER',
  'PAGER',
  'UAN',
  'VOICEMAIL',
];
const MAX_INPUT_LENGTH = 250; // libphonenumber gives up on longer input

function compileNanp(): CompiledCountry[] {
  const md = new Metadata() as unknown as MetadataInternals;
  return (md.getCountryCodesForCallingCode('1') ?? []).map((country) => {
    md.selectNumberingPlan(country);
    const plan = md.numberingPlan;
    const ld = plan.leadingDigits();
    const types = [];
    for (const name of TYPE_NAMES) {
      const t = plan.type(name);
      if (t && t.pattern())
        types.push({ re: new RegExp(`^(?:${t.pattern()})$`), lengths: t.possibleLengths() });
    }
    return {
      leadingDigits: ld ? new RegExp(`^(?:${ld})`) : null,
      national: new RegExp(`^(?:${plan.nationalNumberPattern()})$`),
      hasTypes: plan.hasTypes(),
      types,
    };
  });
}

/** libphonenumber's `getNumberType(...) !== undefined`: false for a country whose metadata has no types. */
function hasKnownType(n: string, c: CompiledCountry): boolean {
  if (!c.national.test(n)) return false;
  for (const t of c.types)
    if ((t.lengths === undefined || t.lengths.includes(n.length)) && t.re.test(n)) return true;
  return false;
}

/** libphonenumber's `isValid` for a chosen country: by type when the metadata has types, else by pattern. */
const isValidIn = (n: string, c: CompiledCountry) => (c.hasTypes ? hasKnownType(n, c) : c.national.test(n));

function isValidNanp(national: string, countries: readonly CompiledCountry[]): boolean {
  // Country choice as libphonenumber's getCountryByNationalNumber: leading digits, else a known type.
  for (const c of countries) {
    if (c.leadingDigits) {
      if (c.leadingDigits.test(national)) return isValidIn(national, c);
    } else if (hasKnownType(national, c)) return true;
  }
  // No country: validated against the main country (US), which already failed above.
  return false;
}

// Optional punctuation, at most one `+` before any digit, then digits and punctuation (space ( ) - .).
const NANP_SHAPE = /^[ ().-]*\+?[0-9 ().-]*$/;
const NON_DIGITS = /[^0-9]/g;

/** The 10-digit NANP national number of a simple North American shape, else `undefined` (use the library). */
function nanpNationalNumber(raw: string): string | undefined {
  if (raw.length > MAX_INPUT_LENGTH || !NANP_SHAPE.test(raw)) return undefined;
  const digits = raw.replace(NON_DIGITS, '');
  const first = digits.charCodeAt(0);
  if (digits.length === 10 && first >= 50 && !raw.includes('+')) return digits;
  if (digits.length === 11 && first === 49 && digits.charCodeAt(1) >= 50) return digits.slice(1);
  return undefined;
}

function viaLibrary(raw: string): string | null {
  const parsed = parsePhoneNumberFromString(raw, 'US');
  return parsed !== undefined && parsed.isValid() ? parsed.number : null;
}

// A library upgrade that renames these internals must not break loading: no fast path then.
const NANP: readonly CompiledCountry[] = (() => {
  try {
    return compileNanp();
  } catch {
    return [];
  }
})();

function fastPath(raw: string): string | null | undefined {
  const national = nanpNationalNumber(raw);
  if (national === undefined) return undefined;
  return isValidNanp(national, NANP) ? `+1${national}` : null;
}

// Samples across formats, NANP countries, and valid/invalid numbers; see the module comment.
const SELF_CHECK = [
  '+1 415 555 0132',
  '(212) 000-0000',
  '1-800-555-0199',
  '268 464 1234',
  '+1 268 555 0100',
  '+1 809 555 0100',
  '204.555.0123',
  '900 555 0123',
  '+1 311 555 0123',
  '(500) 222-3456',
  '15125550123',
  '+1 (684) 733-1234',
];
const FAST_PATH_AGREES = NANP.length > 0 && SELF_CHECK.every((s) => fastPath(s) === viaLibrary(s));

/**
 * Normalises one phone to E.164 (`+14155550132`), or `null` when blank or not a valid number.
 *
 * @example
 * normalizePhone('(415) 555-0132'); // '+14155550132'
 */
export function normalizePhone(raw: string | null | undefined): string | null {
  if (raw == null) return null;
  const trimmed = raw.trim();
  if (trimmed.length === 0) return null;
  const fast = FAST_PATH_AGREES ? fastPath(trimmed) : undefined;
  return fast !== undefined ? fast : viaLibrary(trimmed);
}

/** Normalises phones of one batch, remembering each distinct input (one batch → one normaliser). */
export type PhoneNormalizer = (raw: string | null | undefined) => string | null;

/**
 * A `normalizePhone` that caches results per distinct input for the life of one batch: the same
 * customer's phone repeats across their orders. Not shared across batches (memory stays bounded).
 */
export function createPhoneNormalizer(): PhoneNormalizer {
  const cache = new Map<string, string | null>();
  return (raw) => {
    if (raw == null) return null;
    const hit = cache.get(raw);
    if (hit !== undefined) return hit;
    const result = normalizePhone(raw);
    cache.set(raw, result);
    return result;
  };
}

/** Exposed for tests: whether the fast path is active (its self-check passed). */
export const phoneFastPathActive: boolean = FAST_PATH_AGREES;
