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
 * ciphertext`, `aad` authenticated (see personalAad).
 *
 * @example
 * const sealed = sealFields(key, personalAad(account, subject, eventId), { email: 'ada@example.com' });
 * openFields(key, personalAad(account, subject, eventId), sealed); // { email: 'ada@example.com' }
 */
export function sealFields(dataKey: Buffer, aad: string, fields: object): Buffer {
  const iv = randomBytes(12);
  const c = createCipheriv('aes-256-gcm', keyObjectOf(dataKey), iv);
  c.setAAD(Buffer.from(aad, 'utf8'));
  const ct = Buffer.concat([c.update(JSON.stringify(fields), 'utf8'), c.final()]);
  return Buffer.concat([Buffer.of(VERSION), iv, c.getAuthTag(), ct]);
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
    plain = Buffer.concat([d.update(sealed.subarray(HEADER)), d.final()]);
  } catch {
    throw new PersonalDataUnreadableError('the personal data does not open with this key and record');
  }
  return JSON.parse(plain.toString('utf8')) as Record<string, unknown>;
}
