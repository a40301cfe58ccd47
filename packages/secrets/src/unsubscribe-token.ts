import { createHmac, timingSafeEqual } from 'node:crypto';
import { ConfigError } from '@holdfast/platform';
import { loadKeyList, parseKeyList, type NamedKey } from './key-list.js';
import type { SecretsKeyring } from './secrets-keyring.js';

/** Who a link unsubscribes, from which channel. No address is in it: ids only. */
export interface UnsubscribeSubject {
  readonly accountId: string;
  readonly customerId: string;
  readonly channel: 'email' | 'sms';
}

const PURPOSE = 'unsubscribe-token';
const SETTING = 'HOLDFAST_UNSUBSCRIBE_KEYS';
const VERSION = 1;
const MAC_BYTES = 16;
const UUID = /^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$/i;

const uuidBytes = (id: string): Buffer => Buffer.from(id.replace(/-/g, ''), 'hex');
const uuidText = (b: Buffer): string => {
  const h = b.toString('hex');
  return `${h.slice(0, 8)}-${h.slice(8, 12)}-${h.slice(12, 16)}-${h.slice(16, 20)}-${h.slice(20)}`;
};

/**
 * The keys unsubscribe links are signed with (HOLDFAST_UNSUBSCRIBE_KEYS), apart from the master keys:
 * the recompute signs, the public gateway verifies, and neither needs HOLDFAST_SECRETS_KEYS for it.
 * The first key signs; every key verifies the links it signed, so a key is rotated by putting the new
 * one first and removing the old one once its links may go unanswered.
 *
 * @example
 * const keys = new UnsubscribeKeys(parseUnsubscribeKeys(`u2:${b64New},u1:${b64Old}`));
 */
export class UnsubscribeKeys {
  private readonly byId: ReadonlyMap<string, Buffer>;
  readonly currentKeyId: string;

  constructor(keys: readonly NamedKey[]) {
    if (!keys.length) throw new ConfigError(`${SETTING} needs at least one key`);
    this.byId = new Map(keys.map((k) => [k.id, k.key]));
    this.currentKeyId = keys[0]!.id;
  }

  /** The MAC key `keyId`, or undefined when it is not configured. */
  key(keyId: string): Buffer | undefined {
    return this.byId.get(keyId);
  }
}

/** Parses HOLDFAST_UNSUBSCRIBE_KEYS: `id:base64,id:base64`, current first, each 32 bytes. */
export function parseUnsubscribeKeys(value: string): NamedKey[] {
  return parseKeyList(SETTING, value);
}

/**
 * HOLDFAST_UNSUBSCRIBE_KEYS of `env`. Required in production (a ConfigError without it); elsewhere
 * the local development key, generated once into `~/.cache/holdfast/unsubscribe-key`.
 */
export function loadUnsubscribeKeys(env: Readonly<Record<string, string | undefined>>): UnsubscribeKeys {
  return new UnsubscribeKeys(loadKeyList(env, SETTING, 'unsubscribe-key'));
}

/**
 * The keys links were signed with before HOLDFAST_UNSUBSCRIBE_KEYS existed: one per master key,
 * derived from it with HKDF (`deriveKey('unsubscribe-token')`), under the master key's id. Appended
 * after the current unsubscribe key, they keep those links verifying without the master key (a
 * derived key reveals nothing about it). `holdfast secrets legacy-unsubscribe-keys` prints them.
 *
 * @example
 * legacyUnsubscribeKeys(masterKeyring, ['k1']); // [{ id: 'k1', key: HKDF(k1, 'holdfast.unsubscribe-token') }]
 */
export function legacyUnsubscribeKeys(master: SecretsKeyring, keyIds: readonly string[]): NamedKey[] {
  return keyIds.map((id) => ({ id, key: master.deriveKey(PURPOSE, id).key }));
}

/**
 * Signs an unsubscribe link's token: `base64url(payload).base64url(mac)`, the payload being version,
 * key id, account id, customer id and channel, the MAC the first 128 bits of HMAC-SHA256 under the
 * current unsubscribe key. A token cannot be forged or guessed for another customer without that key;
 * it carries no address, and it never expires (an unsubscribe link must keep working for as long as
 * the mail sits in an inbox).
 *
 * @example
 * const token = signUnsubscribeToken(keys, { accountId, customerId, channel: 'email' });
 * // `${publicUrl}/unsubscribe/${token}`
 */
export function signUnsubscribeToken(keys: UnsubscribeKeys, s: UnsubscribeSubject): string {
  if (!UUID.test(s.accountId) || !UUID.test(s.customerId))
    throw new Error('account and customer ids must be UUIDs');
  const keyId = keys.currentKeyId;
  const key = keys.key(keyId)!;
  const kid = Buffer.from(keyId, 'utf8');
  const payload = Buffer.concat([
    Buffer.from([VERSION, kid.length]),
    kid,
    uuidBytes(s.accountId),
    uuidBytes(s.customerId),
    Buffer.from([s.channel === 'email' ? 0 : 1]),
  ]);
  const mac = createHmac('sha256', key).update(payload).digest().subarray(0, MAC_BYTES);
  return `${payload.toString('base64url')}.${mac.toString('base64url')}`;
}

/**
 * Checks a token and returns whom it unsubscribes, or null for anything that is not a token these
 * keys signed (malformed, tampered, signed with a key no longer configured). Constant-time MAC
 * comparison.
 */
export function verifyUnsubscribeToken(keys: UnsubscribeKeys, token: string): UnsubscribeSubject | null {
  const m = /^([A-Za-z0-9_-]{20,200})\.([A-Za-z0-9_-]{20,30})$/.exec(token);
  if (!m) return null;
  const payload = Buffer.from(m[1]!, 'base64url');
  const mac = Buffer.from(m[2]!, 'base64url');
  if (payload.length < 2 || payload[0] !== VERSION || mac.length !== MAC_BYTES) return null;
  const kidLength = payload[1]!;
  if (payload.length !== 2 + kidLength + 33) return null;
  const keyId = payload.subarray(2, 2 + kidLength).toString('utf8');
  const key = keys.key(keyId);
  if (!key) return null;
  const expected = createHmac('sha256', key).update(payload).digest().subarray(0, MAC_BYTES);
  if (!timingSafeEqual(expected, mac)) return null;
  const at = 2 + kidLength;
  const channel = payload[at + 32];
  if (channel !== 0 && channel !== 1) return null;
  return {
    accountId: uuidText(payload.subarray(at, at + 16)),
    customerId: uuidText(payload.subarray(at + 16, at + 32)),
    channel: channel === 0 ? 'email' : 'sms',
  };
}

let ambient: UnsubscribeKeys | undefined;

/**
 * The unsubscribe keys of this process's environment, loaded once on first use: the default for code
 * embedded in-process (tests). Service entry points load theirs with their configuration instead.
 */
export function defaultUnsubscribeKeys(): UnsubscribeKeys {
  ambient ??= loadUnsubscribeKeys(process.env);
  return ambient;
}
