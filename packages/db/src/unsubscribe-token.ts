import { createHmac, timingSafeEqual } from 'node:crypto';
import type { SecretsKeyring } from './secrets-keyring.js';

/** Who a link unsubscribes, from which channel. No address is in it: ids only. */
export interface UnsubscribeSubject {
  readonly accountId: string;
  readonly customerId: string;
  readonly channel: 'email' | 'sms';
}

const PURPOSE = 'unsubscribe-token';
const VERSION = 1;
const MAC_BYTES = 16;
const UUID = /^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$/i;

const uuidBytes = (id: string): Buffer => Buffer.from(id.replace(/-/g, ''), 'hex');
const uuidText = (b: Buffer): string => {
  const h = b.toString('hex');
  return `${h.slice(0, 8)}-${h.slice(8, 12)}-${h.slice(12, 16)}-${h.slice(16, 20)}-${h.slice(20)}`;
};

/**
 * Signs an unsubscribe link's token: `base64url(payload).base64url(mac)`, the payload being version,
 * master key id, account id, customer id and channel, the MAC the first 128 bits of HMAC-SHA256 under
 * a key derived from the secrets keyring (`deriveKey('unsubscribe-token')`). A token cannot be forged
 * or guessed for another customer without the master key; it carries no address, and it never expires
 * (an unsubscribe link must keep working for as long as the mail sits in an inbox).
 *
 * @example
 * const token = signUnsubscribeToken(keyring, { accountId, customerId, channel: 'email' });
 * // `${publicUrl}/unsubscribe/${token}`
 */
export function signUnsubscribeToken(keyring: SecretsKeyring, s: UnsubscribeSubject): string {
  if (!UUID.test(s.accountId) || !UUID.test(s.customerId))
    throw new Error('account and customer ids must be UUIDs');
  const { keyId, key } = keyring.deriveKey(PURPOSE);
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
 * Checks a token and returns whom it unsubscribes, or null for anything that is not a token this
 * keyring signed (malformed, tampered, signed with a master key no longer configured). Constant-time
 * MAC comparison.
 */
export function verifyUnsubscribeToken(keyring: SecretsKeyring, token: string): UnsubscribeSubject | null {
  const m = /^([A-Za-z0-9_-]{20,200})\.([A-Za-z0-9_-]{20,30})$/.exec(token);
  if (!m) return null;
  const payload = Buffer.from(m[1]!, 'base64url');
  const mac = Buffer.from(m[2]!, 'base64url');
  if (payload.length < 2 || payload[0] !== VERSION || mac.length !== MAC_BYTES) return null;
  const kidLength = payload[1]!;
  if (payload.length !== 2 + kidLength + 33) return null;
  const keyId = payload.subarray(2, 2 + kidLength).toString('utf8');
  if (!keyring.has(keyId)) return null;
  const { key } = keyring.deriveKey(PURPOSE, keyId);
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
