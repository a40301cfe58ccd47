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
