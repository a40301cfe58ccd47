import { COLUMN_LIMITS } from '@holdfast/contracts/http';
import type { ValidationIssue } from './validation-issue.js';

// Byte values the scan looks at.
const QUOTE = 0x22;
const BACKSLASH = 0x5c;
const OPEN_OBJECT = 0x7b;
const OPEN_ARRAY = 0x5b;
const CLOSE_OBJECT = 0x7d;
const CLOSE_ARRAY = 0x5d;
const LOWER_U = 0x75;

// Byte classes, looked up in one table per position (faster than comparing each byte five times:
// this runs over every byte of up to 32 MiB on the ingest hot path).
const OPEN = 1;
const CLOSE = 2;
const STRING = 3;
const END = 1;
const ESCAPE = 2;
const OUTSIDE = new Uint8Array(256);
OUTSIDE[OPEN_OBJECT] = OPEN;
OUTSIDE[OPEN_ARRAY] = OPEN;
OUTSIDE[CLOSE_OBJECT] = CLOSE;
OUTSIDE[CLOSE_ARRAY] = CLOSE;
OUTSIDE[QUOTE] = STRING;
const INSIDE = new Uint8Array(256);
INSIDE[QUOTE] = END;
INSIDE[BACKSLASH] = ESCAPE;

/** Value of one hex digit byte, or -1. */
function hex(b: number | undefined): number {
  if (b === undefined) return -1;
  if (b >= 0x30 && b <= 0x39) return b - 0x30;
  const l = b | 0x20;
  return l >= 0x61 && l <= 0x66 ? l - 0x61 + 10 : -1;
}

/** The code unit of a `\u` escape (four hex digits) whose `u` is at `i`, or -1 when it is not one. */
function escapedUnit(text: Uint8Array, i: number): number {
  if (text[i] !== LOWER_U) return -1;
  const a = hex(text[i + 1]);
  const b = hex(text[i + 2]);
  const c = hex(text[i + 3]);
  const d = hex(text[i + 4]);
  return a < 0 || b < 0 || c < 0 || d < 0 ? -1 : (a << 12) | (b << 8) | (c << 4) | d;
}

const issue = (type: string, msg: string, position: number): ValidationIssue => ({
  type,
  loc: ['body', position],
  msg,
  ctx: { position },
});

/**
 * Checks the raw text of a JSON body BEFORE it is parsed, for what a parser accepts but Holdfast must
 * not: nesting deeper than `maxDepth` (V8 parses 16 million levels, in 24 seconds, and everything
 * recursive after it overflows its stack), the escape `\u0000` (PostgreSQL text and jsonb cannot hold
 * U+0000), and unpaired surrogate escapes such as `\ud800` (not Unicode: PostgreSQL refuses them, and
 * encoders turn them into invalid UTF-8). Raw control bytes and invalid UTF-8 are not looked at here:
 * the first is a JSON syntax error, the second is checked on the bytes by the gateway.
 * One pass over the bytes, no allocation; the answer is a 422 entry at `['body', <byte position>]`,
 * like `json_invalid`: `json_too_deep` or `string_unsupported_character`. Malformed JSON passes (the
 * parser reports it).
 *
 * @example
 * scanJsonText(new TextEncoder().encode('{"a":"x\\u0000"}')); // { type: 'string_unsupported_character', loc: ['body', 8], ... }
 */
export function scanJsonText(
  text: Uint8Array,
  maxDepth: number = COLUMN_LIMITS.JSON_DEPTH,
): ValidationIssue | null {
  const n = text.length;
  let depth = 0;
  let i = 0;
  while (i < n) {
    const kind = OUTSIDE[text[i]!]!;
    if (kind === 0) {
      i++;
      continue;
    }
    if (kind === OPEN) {
      if (++depth > maxDepth) return issue('json_too_deep', `JSON nesting deeper than ${maxDepth} levels`, i);
      i++;
      continue;
    }
    if (kind === CLOSE) {
      depth--;
      i++;
      continue;
    }
    // A string: only the closing quote and escapes matter (one table lookup per byte).
    for (i++; i < n; i++) {
      const c = INSIDE[text[i]!]!;
      if (c === 0) continue;
      if (c === END) break;
      const unit = escapedUnit(text, i + 1);
      if (unit < 0) {
        i++; // a one-character escape (\" \\ \n ...): skip the escaped character
        continue;
      }
      if (unit === 0) return issue('string_unsupported_character', 'Strings cannot contain U+0000 (NUL)', i);
      if (unit >= 0xd800 && unit <= 0xdbff) {
        const low = text[i + 6] === BACKSLASH ? escapedUnit(text, i + 7) : -1;
        if (low < 0xdc00 || low > 0xdfff)
          return issue('string_unsupported_character', 'Strings cannot contain unpaired surrogates', i);
        i += 11;
        continue;
      }
      if (unit >= 0xdc00 && unit <= 0xdfff)
        return issue('string_unsupported_character', 'Strings cannot contain unpaired surrogates', i);
      i += 5;
    }
    i++;
  }
  return null;
}
