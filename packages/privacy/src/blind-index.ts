import { createHmac } from 'node:crypto';
import { keyObjectOf } from './key-objects.js';

/** The identifiers a person is recognised by (the spec's identity rules), each blind-indexed apart. */
export type IdentifierKind = 'external_id' | 'email' | 'phone';

/**
 * What a blind index may be taken over: a person's identifiers, and the pixel's anonymous id (a
 * browser, the subject of its events' personal fields: `anonymousSubject`).
 */
export type IndexKind = IdentifierKind | 'anonymous_id';

/**
 * The blind index of one normalised identifier: HMAC-SHA256 under the account's index key over
 * `<kind>` NUL `<value>`, base64url, its first 22 characters (128 bits). Equal values of one kind in
 * one account index equally, so identity resolution can match on indexes; without the index key an
 * index reveals nothing, and another account (another key) or another kind gives another index.
 * Normalisation is the domain's (lower-cased email, E.164 phone): index the value records carry.
 *
 * @example
 * blindIndex(indexKey, 'email', 'ada@example.com'); // 'm0Vb…' (22 characters)
 */
export function blindIndex(indexKey: Buffer, kind: IndexKind, normalisedValue: string): string {
  return createHmac('sha256', keyObjectOf(indexKey))
    .update(`${kind}\u0000${normalisedValue}`, 'utf8')
    .digest('base64url')
    .slice(0, 22);
}

/** A record's blind-indexed identifiers (null where the record names none). */
export interface IndexedIdentifiers {
  readonly externalId?: string | null;
  readonly email?: string | null;
  readonly phone?: string | null;
}

/**
 * The data subject a record's personal fields are encrypted for: `x:<external id index>`, else
 * `e:<email index>`, else `p:<phone index>`; null when the record names no identifier (the caller
 * then uses the per-record subject `recordSubject(eventId)`).
 *
 * @example
 * subjectOf({ externalId: null, email: 'm0Vb…', phone: 'Qe1…' }); // 'e:m0Vb…'
 */
export function subjectOf(ids: IndexedIdentifiers): string | null {
  if (ids.externalId) return `x:${ids.externalId}`;
  if (ids.email) return `e:${ids.email}`;
  if (ids.phone) return `p:${ids.phone}`;
  return null;
}

/** The subject of a record naming no identifier: its own, `r:<event_id>`, so its key covers it alone. */
export function recordSubject(eventId: string): string {
  return `r:${eventId}`;
}

/**
 * The subject of a browser's pixel events: `a:<blind index of its anonymous id>`. One key per browser,
 * so an erasure of the person a session of it was stitched to destroys it (docs/privacy.md, "Pixel events").
 */
export function anonymousSubject(anonymousIdIndex: string): string {
  return `a:${anonymousIdIndex}`;
}
