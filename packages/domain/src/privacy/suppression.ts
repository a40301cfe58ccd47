import type { PersonIdentifiers } from './person-request.js';

/** The row code of a row dropped because it names a suppressed identifier (dry runs, batch records). */
export const SUPPRESSED_IDENTITY = 'suppressed_identity';

/**
 * Whether a row naming these (normalised) identifiers names a suppressed person. The gateway builds
 * it from the account's suppressions (blind indexes) and its index key; the classifiers only call it.
 */
export type SuppressionCheck = (ids: PersonIdentifiers) => boolean;

/** Suppressions stored as blind indexes, per identifier kind. */
export interface SuppressedIndexes {
  readonly externalId: ReadonlySet<string>;
  readonly email: ReadonlySet<string>;
  readonly phone: ReadonlySet<string>;
}

/**
 * The suppression rule: a row is suppressed when ANY identifier it names is suppressed (a suppressed
 * email on an order under a fresh customer id still names the erased person). `index` turns a kind and
 * a normalised value into its blind index (the gateway passes `blindIndex` bound to the account's key).
 * No suppression at all: a check that never calls `index`.
 *
 * @example
 * const check = suppressionCheck(sets, (kind, v) => blindIndex(key, kind, v));
 * check({ externalId: 'c-9', email: null, phone: null }); // true when c-9's index is suppressed
 */
export function suppressionCheck(
  suppressed: SuppressedIndexes,
  index: (kind: 'external_id' | 'email' | 'phone', value: string) => string,
): SuppressionCheck | undefined {
  if (suppressed.externalId.size + suppressed.email.size + suppressed.phone.size === 0) return undefined;
  return (ids) =>
    (ids.externalId !== null &&
      suppressed.externalId.size > 0 &&
      suppressed.externalId.has(index('external_id', ids.externalId))) ||
    (ids.email !== null && suppressed.email.size > 0 && suppressed.email.has(index('email', ids.email))) ||
    (ids.phone !== null && suppressed.phone.size > 0 && suppressed.phone.has(index('phone', ids.phone)));
}

/**
 * The code of a pixel event dropped because its browser (`anonymous_id`) was erased with `suppress`:
 * its own code, beside `suppressed_identity`, because a browser is not a person's identifier.
 */
export const SUPPRESSED_BROWSER = 'suppressed_browser';

/** Whether a pixel event of this browser (its `anonymous_id`, verbatim) is to be dropped. */
export type BrowserSuppressionCheck = (anonymousId: string) => boolean;

/**
 * The browser suppression rule: an event is dropped when the blind index of its anonymous id (kind
 * `anonymous_id`, the value verbatim as the collector stores it) is suppressed. `index` is
 * `blindIndex` bound to the account's key and that kind. No suppressed browser: no check at all.
 *
 * @example
 * const check = browserSuppressionCheck(indexes, (id) => blindIndex(key, 'anonymous_id', id));
 * check?.('anon-7'); // true when anon-7 was erased with suppress
 */
export function browserSuppressionCheck(
  suppressed: ReadonlySet<string>,
  index: (anonymousId: string) => string,
): BrowserSuppressionCheck | undefined {
  if (suppressed.size === 0) return undefined;
  return (anonymousId) => suppressed.has(index(anonymousId));
}
