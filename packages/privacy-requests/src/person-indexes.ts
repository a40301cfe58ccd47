import type { PersonIdentifiers } from '@holdfast/domain';
import { anonymousSubject, blindIndex } from '@holdfast/privacy';

/** A person as a stored request names them: the blind indexes of their identifiers (null: not named). */
export interface PersonIndexes {
  readonly externalId: string | null;
  readonly email: string | null;
  readonly phone: string | null;
  /** Erasures only: a browser's anonymous id, blind-indexed (absent or null: not named). */
  readonly anonymousId?: string | null;
}

/**
 * The blind indexes of normalised identifiers under the account's index key: what a request stores
 * instead of the identifiers, and what records and read models carry beside their ciphertext.
 *
 * @example
 * indexPerson(await keys.indexKey(accountId), { externalId: 'c-1', email: 'ann@example.com', phone: null });
 */
export function indexPerson(indexKey: Buffer, ids: PersonIdentifiers): PersonIndexes {
  return {
    externalId: ids.externalId === null ? null : blindIndex(indexKey, 'external_id', ids.externalId),
    email: ids.email === null ? null : blindIndex(indexKey, 'email', ids.email),
    phone: ids.phone === null ? null : blindIndex(indexKey, 'phone', ids.phone),
    ...(ids.anonymousId !== undefined
      ? { anonymousId: blindIndex(indexKey, 'anonymous_id', ids.anonymousId) }
      : {}),
  };
}

/**
 * The data subjects the identifiers themselves name: every record that named one of them without a
 * stronger identifier was encrypted for one of these (`subjectOf`: `x:`, else `e:`, else `p:`), so an
 * erasure destroys all three, not only the first.
 */
export function identifierSubjects(idx: PersonIndexes): string[] {
  const out: string[] = [];
  if (idx.externalId !== null) out.push(`x:${idx.externalId}`);
  if (idx.email !== null) out.push(`e:${idx.email}`);
  if (idx.phone !== null) out.push(`p:${idx.phone}`);
  // A named browser: the subject its pixel events were sealed under (`sealPixelPersonal`).
  if (idx.anonymousId) out.push(anonymousSubject(idx.anonymousId));
  return out;
}
