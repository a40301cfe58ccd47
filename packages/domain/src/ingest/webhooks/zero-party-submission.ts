import { parseTimestamp } from '../shared/parse-timestamp.js';
import { idToString, isPlainObject, normalizeEmail, stringOrNull } from '../shared/text.js';
import { canonicalJson, fnv1a64 } from './canonical-hash.js';
import { NOT_AN_OBJECT_DETAIL } from './custom-api-event.js';
import type { ParsedWebhook } from './custom-api-event.js';

/** POST /webhooks/zero-party body, normalised. */
export interface ZeroPartySubmission {
  email: string | null;
  external_customer_id: string | null;
  interests: string[];
  attributes: Record<string, unknown> | null;
  source_label: string | null;
  quiz_version: string | null;
  completed_at: string | null;
}

/** 400 detail for a zero-party submission without identity. */
export const ZERO_PARTY_NO_IDENTITY_DETAIL =
  'At least one of email or external_customer_id (external_id, customer_id) is required.';

/**
 * Parses a free-form zero-party submission. external_customer_id falls back to external_id, then
 * customer_id (numbers stringified); email trimmed and lower-cased; interests keeps the non-blank
 * strings of an array, trimmed, in order (anything else → []); attributes must be an object (else
 * null); quiz_version string or number → string; completed_at parsed as ISO 8601 (naive → UTC,
 * unparseable → null). 400 when the body is not an object or carries neither email nor external id
 * (a phone is not an identity here: the submission has no phone key).
 *
 * @example
 * parseZeroPartySubmission({ email: 'A@b.co', interests: ['tea', 3] });
 * // { ok: true, submission: { email: 'a@b.co', interests: ['tea'], ... } }
 */
export function parseZeroPartySubmission(body: unknown): ParsedWebhook<'submission', ZeroPartySubmission> {
  if (!isPlainObject(body)) return { ok: false, detail: NOT_AN_OBJECT_DETAIL };
  const interests = Array.isArray(body.interests)
    ? body.interests.flatMap((v) => (typeof v === 'string' && v.trim().length > 0 ? [v.trim()] : []))
    : [];
  const completed = typeof body.completed_at === 'string' ? parseTimestamp(body.completed_at) : null;
  const submission: ZeroPartySubmission = {
    email: typeof body.email === 'string' ? normalizeEmail(body.email) : null,
    external_customer_id:
      idToString(body.external_customer_id) ?? idToString(body.external_id) ?? idToString(body.customer_id),
    interests,
    attributes: isPlainObject(body.attributes) ? body.attributes : null,
    source_label: stringOrNull(body.source_label),
    quiz_version: idToString(body.quiz_version),
    completed_at: completed?.iso ?? null,
  };
  if (submission.email === null && submission.external_customer_id === null)
    return { ok: false, detail: ZERO_PARTY_NO_IDENTITY_DETAIL };
  return { ok: true, submission };
}

/**
 * Dedup key of a zero-party submission: `zp:` + FNV-1a 64 of the canonical normalised submission, so
 * a changed answer is a new event while key order, email case or whitespace are not.
 *
 * @example
 * dedupKeyForZeroParty(submission); // 'zp:…' (16 hex digits)
 */
export function dedupKeyForZeroParty(submission: ZeroPartySubmission): string {
  return `zp:${fnv1a64(canonicalJson(submission))}`;
}
