import { createCipheriv, createDecipheriv, randomBytes } from 'node:crypto';
import { keyObjectOf } from './key-objects.js';

/** The envelope's format version (its first byte). */
const VERSION = 1;
const HEADER = 1 + 12 + 16;

/** Sealed personal fields could not be opened: wrong key, wrong record (aad), tampered or unknown version. */
export class PersonalDataUnreadableError extends Error {
  override readonly name = 'PersonalDataUnreadableError';
  readonly isRetriable = false;
}

/**
 * The authenticated data of a record's personal fields: `<account_id>/<subject_id>/<event_id>`, so a
 * ciphertext copied into another record (another event, subject or account) does not open.
 */
export function personalAad(accountId: string, subjectId: string, eventId: string): string {
  return `${accountId}/${subjectId}/${eventId}`;
}

/**
 * Seals `fields` (JSON) under a subject's data key: AES-256-GCM, `version (1) | iv (12) | tag (16) |
 * ciphertext`, `aad` authenticated (see personalAad). `iv`: 12 fresh random bytes (default: drawn
 * here); a caller sealing many records draws them for all at once (`randomBytes(12 * n)`): one call to
 * the random source per record was a third of a seal's time.
 *
 * @example
 * const sealed = sealFields(key, personalAad(account, subject, eventId), { email: 'ada@example.com' });
 * openFields(key, personalAad(account, subject, eventId), sealed); // { email: 'ada@example.com' }
 */
export function sealFields(
  dataKey: Buffer,
  aad: string,
  fields: object,
  iv: Buffer = randomBytes(12),
): Buffer {
  if (iv.length !== 12) throw new Error('an AES-GCM iv is 12 bytes');
  const c = createCipheriv('aes-256-gcm', keyObjectOf(dataKey), iv);
  c.setAAD(Buffer.from(aad, 'utf8'));
  const ct = c.update(JSON.stringify(fields), 'utf8');
  c.final(); // GCM: nothing more (a stream mode), only the tag
  // One buffer for the envelope, no concatenations.
  const out = Buffer.allocUnsafe(HEADER + ct.length);
  out[0] = VERSION;
  iv.copy(out, 1);
  c.getAuthTag().copy(out, 13);
  ct.copy(out, HEADER);
  return out;
}

/** Opens what sealFields sealed with the same key and aad; PersonalDataUnreadableError otherwise. */
export function openFields(dataKey: Buffer, aad: string, sealed: Buffer): Record<string, unknown> {
  if (sealed.length < HEADER || sealed[0] !== VERSION)
    throw new PersonalDataUnreadableError('not a version-1 personal-data envelope');
  let plain: Buffer;
  try {
    const d = createDecipheriv('aes-256-gcm', keyObjectOf(dataKey), sealed.subarray(1, 13));
    d.setAAD(Buffer.from(aad, 'utf8'));
    d.setAuthTag(sealed.subarray(13, HEADER));
    plain = d.update(sealed.subarray(HEADER));
    d.final(); // GCM: checks the tag, yields nothing (no concatenation: one copy less per record)
  } catch {
    throw new PersonalDataUnreadableError('the personal data does not open with this key and record');
  }
  return JSON.parse(plain.toString('utf8')) as Record<string, unknown>;
}
