/** True for `null`, `undefined`, and strings that are empty or whitespace only. */
export function isBlank(value: string | null | undefined): boolean {
  return value == null || value.length === 0 || value.trim().length === 0;
}

/** The value unless it is blank, then `null`. Kept verbatim otherwise (ids are never rewritten). */
export function blankToNull(value: string | null | undefined): string | null {
  return isBlank(value) ? null : (value as string);
}

/** Email as stored: trimmed and lower-cased; blank → `null`. No syntax check (the spec has none). */
export function normalizeEmail(value: string | null | undefined): string | null {
  if (value == null) return null;
  const trimmed = value.trim();
  return trimmed.length === 0 ? null : trimmed.toLowerCase();
}

/** A JSON object (not an array, not null). */
export function isPlainObject(value: unknown): value is Record<string, unknown> {
  return typeof value === 'object' && value !== null && !Array.isArray(value);
}

/** A free-form id (string or finite number) as a string; blank → `null`. */
export function idToString(value: unknown): string | null {
  if (typeof value === 'number') return Number.isFinite(value) ? String(value) : null;
  return typeof value === 'string' ? blankToNull(value) : null;
}

/** Only for strings: anything else (free-form bodies) → `null`; blank → `null`. */
export function stringOrNull(value: unknown): string | null {
  return typeof value === 'string' ? blankToNull(value) : null;
}
