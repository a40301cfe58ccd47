import { randomBytes, randomUUID } from 'node:crypto';
import { describe, expect, it } from 'vitest';
import { SecretsKeyring } from './secrets-keyring.js';
import { signUnsubscribeToken, verifyUnsubscribeToken } from './unsubscribe-token.js';

const k1 = { id: 'k1', key: randomBytes(32) };
const k2 = { id: 'k2', key: randomBytes(32) };
const subject = { accountId: randomUUID(), customerId: randomUUID(), channel: 'email' as const };

describe('unsubscribe tokens', () => {
  it('given a signed token, when verified, then it names the account, customer and channel', () => {
    const ring = new SecretsKeyring([k1]);
    const token = signUnsubscribeToken(ring, subject);
    expect(token).toMatch(/^[A-Za-z0-9_-]+\.[A-Za-z0-9_-]+$/);
    expect(verifyUnsubscribeToken(ring, token)).toEqual(subject);
    expect(verifyUnsubscribeToken(ring, signUnsubscribeToken(ring, { ...subject, channel: 'sms' }))).toEqual({
      ...subject,
      channel: 'sms',
    });
  });

  it('given a token whose payload names another customer, when verified, then it is refused', () => {
    const ring = new SecretsKeyring([k1]);
    const [payload, mac] = signUnsubscribeToken(ring, subject).split('.');
    const other = signUnsubscribeToken(ring, { ...subject, customerId: randomUUID() }).split('.')[0];
    expect(verifyUnsubscribeToken(ring, `${other}.${mac}`)).toBeNull();
    const flipped = Buffer.from(payload!, 'base64url');
    flipped[flipped.length - 2]! ^= 1;
    expect(verifyUnsubscribeToken(ring, `${flipped.toString('base64url')}.${mac}`)).toBeNull();
  });

  it('given another keyring, malformed or truncated tokens, when verified, then they are refused', () => {
    const token = signUnsubscribeToken(new SecretsKeyring([k1]), subject);
    expect(
      verifyUnsubscribeToken(new SecretsKeyring([{ id: 'k1', key: randomBytes(32) }]), token),
    ).toBeNull();
    expect(verifyUnsubscribeToken(new SecretsKeyring([k2]), token)).toBeNull();
    for (const bad of ['', 'abc', token.slice(0, -2), `${token}x`, token.replace('.', '')])
      expect(verifyUnsubscribeToken(new SecretsKeyring([k1]), bad)).toBeNull();
  });

  it('given a rotated keyring that still holds the old key, when verified, then old links still work', () => {
    const token = signUnsubscribeToken(new SecretsKeyring([k1]), subject);
    expect(verifyUnsubscribeToken(new SecretsKeyring([k2, k1]), token)).toEqual(subject);
  });

  it('carries no address: the token is the same length whoever it is for', () => {
    const ring = new SecretsKeyring([k1]);
    const a = signUnsubscribeToken(ring, subject);
    const b = signUnsubscribeToken(ring, { ...subject, customerId: randomUUID() });
    expect(a.length).toBe(b.length);
    // Only the two ids, packed as bytes (a random id byte may be '@' by chance, so no regex on it):
    // the payload is the same fixed size for every customer and holds no id as text.
    const payload = Buffer.from(a.split('.')[0]!, 'base64url');
    expect(payload.length).toBe(Buffer.from(b.split('.')[0]!, 'base64url').length);
    expect(payload.toString('latin1')).not.toContain(subject.customerId);
  });
});
