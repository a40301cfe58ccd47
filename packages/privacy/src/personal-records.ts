import { randomBytes } from 'node:crypto';
import { recordSubject, subjectOf } from './blind-index.js';
import {
  identifiersOf,
  PERSONAL_LAYOUTS,
  withoutPersonal,
  withPersonal,
  type ClearIdentifiers,
  type PersonalEvent,
  type PersonalFields,
} from './commerce-personal.js';
import { openFields, personalAad, PersonalDataUnreadableError, sealFields } from './envelope.js';
import type { SubjectKeyCache } from './subject-key-cache.js';

/** Blind indexes of a record's identifiers (null where it names none). */
export interface IdentifierIndexes {
  readonly externalId: string | null;
  readonly email: string | null;
  readonly phone: string | null;
}

/** The identifiers' blind indexes under the account's index key (remembered by the cache). */
function indexesOf(
  keys: SubjectKeyCache,
  account: string,
  key: Buffer,
  ids: ClearIdentifiers,
): IdentifierIndexes {
  return {
    externalId: ids.externalId === null ? null : keys.blindIndex(account, key, 'external_id', ids.externalId),
    email: ids.email === null ? null : keys.blindIndex(account, key, 'email', ids.email),
    phone: ids.phone === null ? null : keys.blindIndex(account, key, 'phone', ids.phone),
  };
}

export interface SealOptions {
  /**
   * Subjects already erased (`privacy.erased_subjects`): their records are written with their
   * personal fields dropped (`personal` with an empty ciphertext, indexes kept) and no key is made
   * for them, as if sealed under a key destroyed since (`holdfast privacy migrate-log`).
   */
  readonly erased?: ReadonlySet<string>;
}

/**
 * Encrypts the personal fields of one account's records (one ingest request): each record's
 * identifiers are blind-indexed, its subject derived (`subjectOf`, else `r:<event_id>`), the data
 * keys of all its distinct subjects fetched (created when missing) in ONE store round trip (cache
 * misses only), and the fields sealed into `personal` while the clear fields are written null. A
 * record with no personal value at all is returned unchanged (`personal` null: nothing to hide; the
 * projector indexes its clear identifiers itself).
 *
 * @example
 * const values = await sealPersonal(keys, accountId, orders.map((value) => ({ type: 'OrderUpserted', value })));
 */
export async function sealPersonal<E extends PersonalEvent>(
  keys: SubjectKeyCache,
  accountId: string,
  events: readonly E[],
  opts: SealOptions = {},
): Promise<E['value'][]> {
  if (!events.length) return [];
  const account = accountId.toLowerCase();
  const indexKey = await keys.indexKey(account);
  const plans = events.map((e) => {
    const indexes = indexesOf(keys, account, indexKey, identifiersOf(e));
    const split = withoutPersonal(e);
    // No personal value (an order naming its customer by external id only): nothing to seal, no key.
    const subject = split.fields ? (subjectOf(indexes) ?? recordSubject(e.value.metadata.event_id)) : null;
    return { e, indexes, split, subject };
  });
  const erased = opts.erased;
  const subjects = plans.flatMap((p) => (p.subject && !erased?.has(p.subject) ? [p.subject] : []));
  const dataKeys = subjects.length
    ? await keys.dataKeys(account, subjects, { create: true })
    : new Map<string, Buffer>();
  // Every record's iv from one call to the random source.
  const ivs = randomBytes(12 * plans.length);
  return plans.map(({ e, indexes, split, subject }, i) => {
    if (subject === null) return e.value;
    if (erased?.has(subject))
      return {
        ...split.value,
        personal: {
          subject_id: subject,
          ciphertext: Buffer.alloc(0),
          external_id_index: indexes.externalId,
          email_index: indexes.email,
          phone_index: indexes.phone,
        },
      };
    const key = dataKeys.get(subject);
    if (!key) throw new Error(`no data key for a subject of account ${account} after creating it`);
    // `split.value` is withoutPersonal's own copy: set `personal` on it rather than copy it again.
    const value = split.value as { personal: unknown };
    value.personal = {
      subject_id: subject,
      ciphertext: sealFields(
        key,
        personalAad(account, subject, e.value.metadata.event_id),
        split.fields ?? [],
        ivs.subarray(12 * i, 12 * i + 12),
      ),
      external_id_index: indexes.externalId,
      email_index: indexes.email,
      phone_index: indexes.phone,
    };
    return split.value;
  });
}

/** A record as the projector folds it: personal fields back in clear when readable. */
export interface OpenedRecord<E extends PersonalEvent = PersonalEvent> {
  readonly value: E['value'];
  /** The identifiers' blind indexes: carried by an encrypted record, computed for one in clear. */
  readonly indexes: IdentifierIndexes;
  /** The subject whose key encrypted it; null for a record written in clear. */
  readonly subjectId: string | null;
  /** False when its subject's key is gone (shredded): its personal fields are null. */
  readonly readable: boolean;
}

/**
 * Decrypts the personal fields of a chunk's records: per account, the distinct subjects' keys in one
 * store round trip (cache misses only; never created), the index key only when a record was written
 * in clear (its indexes are computed from its clear values, exactly as the gateway would have). A
 * record whose key was destroyed folds with its personal fields null; one whose ciphertext does not
 * open with its key throws PersonalDataUnreadableError (not retriable: a poison record).
 */
export async function openPersonal<E extends PersonalEvent>(
  keys: SubjectKeyCache,
  events: readonly E[],
): Promise<OpenedRecord<E>[]> {
  const byAccount = new Map<string, { subjects: string[]; clear: boolean }>();
  for (const e of events) {
    const account = e.value.metadata.account_id.toLowerCase();
    let a = byAccount.get(account);
    if (!a) byAccount.set(account, (a = { subjects: [], clear: false }));
    if (e.value.personal) a.subjects.push(e.value.personal.subject_id);
    else a.clear = true;
  }
  const dataKeys = new Map<string, Map<string, Buffer>>();
  const indexKeys = new Map<string, Buffer>();
  for (const [account, a] of byAccount) {
    if (a.subjects.length) dataKeys.set(account, await keys.dataKeys(account, a.subjects, { create: false }));
    if (a.clear) indexKeys.set(account, await keys.indexKey(account));
  }
  return events.map((e) => {
    const account = e.value.metadata.account_id.toLowerCase();
    return openOne(
      keys,
      e,
      account,
      indexKeys.get(account),
      dataKeys.get(account)?.get(e.value.personal?.subject_id ?? ''),
    );
  });
}

/**
 * `openPersonal` from the cache alone, without a round trip (the projector's lookahead, which must
 * not wait): undefined when a key it needs is not cached (uncached and shredded look alike here).
 */
export function openPersonalCached<E extends PersonalEvent>(
  keys: SubjectKeyCache,
  events: readonly E[],
): OpenedRecord<E>[] | undefined {
  const out: OpenedRecord<E>[] = [];
  for (const e of events) {
    const account = e.value.metadata.account_id.toLowerCase();
    const p = e.value.personal;
    const indexKey = p ? undefined : keys.peekIndexKey(account);
    const dataKey = p ? keys.peekDataKey(account, p.subject_id) : undefined;
    if (p ? !dataKey : !indexKey) return undefined;
    out.push(openOne(keys, e, account, indexKey, dataKey));
  }
  return out;
}

function openOne<E extends PersonalEvent>(
  keys: SubjectKeyCache,
  e: E,
  account: string,
  indexKey: Buffer | undefined,
  dataKey: Buffer | undefined,
): OpenedRecord<E> {
  const p = e.value.personal;
  if (!p) {
    return {
      value: e.value,
      indexes: indexesOf(keys, account, indexKey!, identifiersOf(e)),
      subjectId: null,
      readable: true,
    };
  }
  const indexes = { externalId: p.external_id_index, email: p.email_index, phone: p.phone_index };
  // An empty ciphertext: sealed for an erased subject (migrate-log), nothing to open whatever key the
  // subject has now (a returning person gets a new one).
  if (!dataKey || !p.ciphertext.length)
    return { value: withPersonal(e, null), indexes, subjectId: p.subject_id, readable: false };
  let fields: PersonalFields;
  try {
    fields = openFields(
      dataKey,
      personalAad(account, p.subject_id, e.value.metadata.event_id),
      p.ciphertext,
      PERSONAL_LAYOUTS[e.type],
    );
  } catch (err) {
    if (err instanceof PersonalDataUnreadableError)
      throw new PersonalDataUnreadableError(`event ${e.value.metadata.event_id}: ${err.message}`);
    throw err;
  }
  return { value: withPersonal(e, fields), indexes, subjectId: p.subject_id, readable: true };
}
