import { randomBytes } from 'node:crypto';
import type { EventMetadata, PixelEventCollected } from '@holdfast/contracts';
import { anonymousSubject } from './blind-index.js';
import { openFields, personalAad, PersonalDataUnreadableError, sealFields } from './envelope.js';
import type { SealOptions } from './personal-records.js';
import type { SubjectKeyCache } from './subject-key-cache.js';

/** A pixel event as the gateway appends it and the projector folds it. */
export type PixelEvent = PixelEventCollected & { readonly metadata: EventMetadata };

/**
 * The fields of a pixel event that may carry personal data, sealed in `personal`: the free-form
 * `raw_props` (a site may put an email, a name or a customer number there), what the visitor typed
 * in `search`, and `page_title` (account pages greet the person by name). The rest (event type,
 * times, anonymous and session ids, url path, product, price, consent) stays in clear: analytics
 * and stitching read it, and it names nobody on its own. Their values are sealed in this order
 * (envelope version 2; append only).
 */
export const PIXEL_PERSONAL_LAYOUT = Object.freeze(['raw_props_json', 'search', 'page_title'] as const);

/** A pixel event's personal values, in the order of PIXEL_PERSONAL_LAYOUT. */
export type PixelPersonalFields = readonly [
  raw_props_json: string | null,
  search: string | null,
  page_title: string | null,
];

/** Splits an event into its personal fields (null when it has none) and the event with them null. */
export function withoutPixelPersonal(e: PixelEvent): {
  readonly value: PixelEvent;
  readonly fields: PixelPersonalFields | null;
} {
  const any = e.raw_props_json !== null || e.search !== null || e.page_title !== null;
  return {
    value: { ...e, raw_props_json: null, search: null, page_title: null },
    fields: any ? [e.raw_props_json, e.search, e.page_title] : null,
  };
}

const str = (v: unknown): string | null => (typeof v === 'string' ? v : null);

/** The event with its personal fields put back from `fields`; null fields (shredded) leave them null. */
export function withPixelPersonal(e: PixelEvent, fields: readonly unknown[] | null): PixelEvent {
  if (!fields) return { ...e, personal: null };
  return {
    ...e,
    raw_props_json: str(fields[0]),
    search: str(fields[1]),
    page_title: str(fields[2]),
    personal: null,
  };
}

/**
 * Encrypts the personal fields of one account's pixel events (one collector request): each event's
 * subject is its browser, `a:<blind index of anonymous_id>` (the gateway never knows the person: a
 * session is stitched to a customer at read time, docs/privacy.md "Pixel events"); the data keys of
 * the request's distinct browsers are fetched (created when missing) in ONE store round trip (cache
 * misses only). An event with no personal value is returned unchanged (`personal` null); one of an
 * erased browser (`opts.erased`, `holdfast privacy migrate-log`) gets an empty ciphertext and no key.
 */
export async function sealPixelPersonal(
  keys: SubjectKeyCache,
  accountId: string,
  events: readonly PixelEvent[],
  opts: SealOptions = {},
): Promise<PixelEvent[]> {
  if (!events.length) return [];
  const account = accountId.toLowerCase();
  const indexKey = await keys.indexKey(account);
  const plans = events.map((e) => {
    const split = withoutPixelPersonal(e);
    const subject = split.fields
      ? anonymousSubject(keys.blindIndex(account, indexKey, 'anonymous_id', e.anonymous_id))
      : null;
    return { e, split, subject };
  });
  const erased = opts.erased;
  const subjects = plans.flatMap((p) => (p.subject && !erased?.has(p.subject) ? [p.subject] : []));
  const dataKeys = subjects.length
    ? await keys.dataKeys(account, subjects, { create: true })
    : new Map<string, Buffer>();
  const ivs = randomBytes(12 * plans.length);
  return plans.map(({ e, split, subject }, i) => {
    if (subject === null || !split.fields) return e;
    // An erased browser (migrate-log): its fields dropped, no key made, as if sealed under a key
    // destroyed since.
    if (erased?.has(subject))
      return { ...split.value, personal: { subject_id: subject, ciphertext: Buffer.alloc(0) } };
    const key = dataKeys.get(subject);
    if (!key) throw new Error(`no data key for a pixel subject of account ${account} after creating it`);
    return {
      ...split.value,
      personal: {
        subject_id: subject,
        ciphertext: sealFields(
          key,
          personalAad(account, subject, e.metadata.event_id),
          split.fields,
          ivs.subarray(12 * i, 12 * i + 12),
        ),
      },
    };
  });
}

/** A pixel event as the projector folds it. */
export interface OpenedPixelEvent {
  readonly value: PixelEvent;
  /** False when its browser's key is gone (the person it was stitched to was erased). */
  readonly readable: boolean;
}

/**
 * Decrypts a chunk's pixel events: per account, the distinct subjects' keys in one store round trip
 * (cache misses only; never created). An event whose key was destroyed, or whose ciphertext does not
 * open with its subject's key (a key made again for a browser returning after an erasure), folds
 * with its personal fields null; an event written in clear folds as it is.
 */
export async function openPixelPersonal(
  keys: SubjectKeyCache,
  events: readonly PixelEvent[],
): Promise<OpenedPixelEvent[]> {
  const byAccount = new Map<string, string[]>();
  for (const e of events) {
    if (!e.personal) continue;
    const account = e.metadata.account_id.toLowerCase();
    let subjects = byAccount.get(account);
    if (!subjects) byAccount.set(account, (subjects = []));
    subjects.push(e.personal.subject_id);
  }
  const dataKeys = new Map<string, Map<string, Buffer>>();
  for (const [account, subjects] of byAccount)
    dataKeys.set(account, await keys.dataKeys(account, subjects, { create: false }));
  return events.map((e) => {
    const p = e.personal;
    if (!p) return { value: e, readable: true };
    const account = e.metadata.account_id.toLowerCase();
    const key = dataKeys.get(account)?.get(p.subject_id);
    if (!key || !p.ciphertext.length) return { value: withPixelPersonal(e, null), readable: false };
    try {
      const fields = openFields(
        key,
        personalAad(account, p.subject_id, e.metadata.event_id),
        p.ciphertext,
        PIXEL_PERSONAL_LAYOUT,
      );
      return { value: withPixelPersonal(e, fields), readable: true };
    } catch (err) {
      // Sealed under a key destroyed since: the browser came back after the erasure and got a NEW key
      // for the same subject id, which does not open its old events. They fold as shredded (never as
      // poison, which would drop the event from a replay while live kept it, blanked). A tampered
      // ciphertext folds the same way: GCM still refuses to yield anything it did not seal.
      if (err instanceof PersonalDataUnreadableError)
        return { value: withPixelPersonal(e, null), readable: false };
      throw err;
    }
  });
}
