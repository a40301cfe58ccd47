import { COLUMN_LIMITS } from '@holdfast/contracts/http';
import { formatUtcIso } from './format-utc-iso.js';

/** A timestamp read from a client: ISO 8601 UTC with `Z`, whether it lacked an offset, and its epoch ms. */
export interface ParsedTimestamp {
  readonly iso: string;
  readonly naive: boolean;
  readonly ms: number;
}

const DAYS_IN_MONTH = [31, 28, 31, 30, 31, 30, 31, 31, 30, 31, 30, 31];
const MS_PER_400_YEARS = 146_097 * 86_400_000;
// ASCII codes of the characters the grammar names ('-' is both the date separator and a minus sign).
const CHAR = {
  T: 84,
  t: 116,
  SPACE: 32,
  COLON: 58,
  DOT: 46,
  COMMA: 44,
  Z: 90,
  z: 122,
  PLUS: 43,
  MINUS: 45,
} as const;
const { T, t, SPACE, COLON, DOT, COMMA, Z, z, PLUS, MINUS } = CHAR;

const isLeap = (y: number) => (y % 4 === 0 && y % 100 !== 0) || y % 400 === 0;

/** Two ASCII digits at `i` as a number, or -1 (also past the end: charCodeAt gives NaN there). */
function twoDigits(s: string, i: number): number {
  const a = s.charCodeAt(i) - 48;
  const b = s.charCodeAt(i + 1) - 48;
  return a >= 0 && a <= 9 && b >= 0 && b <= 9 ? a * 10 + b : -1;
}

/**
 * Parses an ISO 8601 timestamp strictly: `YYYY-MM-DD`, optionally followed by `T` (or `t` or one
 * space) `hh:mm`, optional `:ss`, optional fraction (`.` or `,`, 1 to 9 digits), optional offset (`Z`,
 * `±hh`, `±hhmm`, `±hh:mm`). Returns `null` when unparseable, including impossible dates (Feb 30,
 * 24:00). No `Date.parse`: its non-ISO behaviour is implementation-defined. Decisions:
 * - no offset → read as UTC and flagged `naive` (spec: "A timestamp without an offset is read as UTC");
 * - date only (`2024-01-02`) → midnight UTC, `naive`;
 * - fractions beyond milliseconds are truncated; leap seconds (`:60`) are unparseable;
 * - surrounding whitespace is ignored;
 * - an instant outside UTC years 0001..9999 once the offset is applied (`0000-01-01`, or
 *   `9999-12-31T23:00:00-05:00`) is unparseable: PostgreSQL and the log's ISO form cannot carry it.
 * Hand-written over char codes (no regex captures, no substrings): it runs for every order row.
 *
 * @example
 * parseTimestamp('2024-01-02T10:00:00-05:00'); // { iso: '2024-01-02T15:00:00.000Z', naive: false, ms: 1704207600000 }
 * parseTimestamp('2024-01-02');                // { iso: '2024-01-02T00:00:00.000Z', naive: true, ms: 1704153600000 }
 */
export function parseTimestamp(text: string): ParsedTimestamp | null {
  const s =
    text.length > 0 && (text.charCodeAt(0) <= SPACE || text.charCodeAt(text.length - 1) <= SPACE)
      ? text.trim()
      : text;
  const n = s.length;
  if (n < 10 || s.charCodeAt(4) !== MINUS || s.charCodeAt(7) !== MINUS) return null;
  const hi = twoDigits(s, 0);
  const lo = twoDigits(s, 2);
  const month = twoDigits(s, 5);
  const day = twoDigits(s, 8);
  if (hi < 0 || lo < 0 || month < 1 || month > 12 || day < 1) return null;
  const year = hi * 100 + lo;
  if (day > (month === 2 && isLeap(year) ? 29 : DAYS_IN_MONTH[month - 1]!)) return null;

  let hour = 0;
  let minute = 0;
  let second = 0;
  let millis = 0;
  let offsetMinutes = 0;
  let naive = true;
  let i = 10;
  if (i < n) {
    const sep = s.charCodeAt(i);
    if (sep !== T && sep !== t && sep !== SPACE) return null;
    hour = twoDigits(s, i + 1);
    minute = s.charCodeAt(i + 3) === COLON ? twoDigits(s, i + 4) : -1;
    if (hour < 0 || hour > 23 || minute < 0 || minute > 59) return null;
    i += 6;
    if (s.charCodeAt(i) === COLON) {
      second = twoDigits(s, i + 1);
      if (second < 0 || second > 59) return null;
      i += 3;
      const c = s.charCodeAt(i);
      if (c === DOT || c === COMMA) {
        let digits = 0;
        for (i++; i < n; i++, digits++) {
          const d = s.charCodeAt(i) - 48;
          if (d < 0 || d > 9) break;
          if (digits < 3) millis = millis * 10 + d;
        }
        if (digits === 0 || digits > 9) return null;
        if (digits < 3) millis *= digits === 1 ? 100 : 10;
      }
    }
    if (i < n) {
      const c = s.charCodeAt(i);
      naive = false;
      if (c === Z || c === z) i++;
      else if (c === PLUS || c === MINUS) {
        const oh = twoDigits(s, i + 1);
        if (oh < 0 || oh > 23) return null;
        i += 3;
        let om = 0;
        if (i < n) {
          if (s.charCodeAt(i) === COLON) i++;
          om = twoDigits(s, i);
          if (om < 0 || om > 59) return null;
          i += 2;
        }
        offsetMinutes = (c === MINUS ? -1 : 1) * (oh * 60 + om);
      } else return null;
    }
    if (i !== n) return null;
  }
  // Date.UTC maps years 0..99 to 1900..1999; shift by a 400-year cycle (same calendar) and back.
  const local =
    year < 100
      ? Date.UTC(year + 400, month - 1, day, hour, minute, second, millis) - MS_PER_400_YEARS
      : Date.UTC(year, month - 1, day, hour, minute, second, millis);
  const ms = local - offsetMinutes * 60_000;
  if (ms < COLUMN_LIMITS.TIMESTAMP_MIN_MS || ms > COLUMN_LIMITS.TIMESTAMP_MAX_MS) return null;
  return { iso: formatUtcIso(ms), naive, ms };
}
