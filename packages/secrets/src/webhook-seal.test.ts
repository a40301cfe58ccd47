import { randomBytes } from 'node:crypto';
import { describe, expect, it } from 'vitest';
import { SecretsKeyring, SecretUnreadableError } from './secrets-keyring.js';
import { parseWebhookSealKey } from './webhook-seal.js';

const key = (id: string) => ({ id, key: randomBytes(32) });

describe('sealing to a master key’s public key (the gateway’s webhook secrets)', () => {
  const k1 = key('k1');
  const ring = new SecretsKeyring([k1]);
  const sealer = parseWebhookSealKey(ring.webhookSealKeySetting());

  it('given the public key of k1, when a secret is sealed to it, then the keyring holding k1 opens it', () => {
    const sealed = sealer.seal('whsec_abc', 'row-1');
    expect(sealed.keyId).toBe('x25519:k1');
    expect(ring.open(sealed, 'row-1')).toBe('whsec_abc');
    expect(ring.has(sealed.keyId)).toBe(true);
  });

  it('given a sealed-to secret, when opened with another master key or another row id, then it does not open', () => {
    const sealed = sealer.seal('whsec_abc', 'row-1');
    const other = new SecretsKeyring([{ id: 'k1', key: randomBytes(32) }]);
    expect(() => other.open(sealed, 'row-1')).toThrow(SecretUnreadableError);
    expect(() => ring.open(sealed, 'row-2')).toThrow(SecretUnreadableError);
    expect(() => new SecretsKeyring([key('k2')]).open(sealed, 'row-1')).toThrow(/no master key "k1"/);
  });

  it('given two seals of one secret, then they differ (a fresh ephemeral key and data key each time)', () => {
    const a = sealer.seal('whsec_abc', 'row-1');
    const b = sealer.seal('whsec_abc', 'row-1');
    expect(a.wrappedKey.equals(b.wrappedKey)).toBe(false);
    expect(a.ciphertext.equals(b.ciphertext)).toBe(false);
  });

  it('given a rotated master key, when rewrapped, then it is an ordinary secret under the current key', () => {
    const sealed = sealer.seal('whsec_abc', 'row-1');
    const next = new SecretsKeyring([key('k2'), k1]);
    const moved = next.rewrap(sealed);
    expect(moved.keyId).toBe('k2');
    expect(next.open(moved, 'row-1')).toBe('whsec_abc');
  });

  it('given a malformed setting, when parsed, then a configuration error', () => {
    expect(() => parseWebhookSealKey('k1:abc')).toThrow(/HOLDFAST_WEBHOOK_SEAL_KEY/);
    expect(() => parseWebhookSealKey(randomBytes(32).toString('base64'))).toThrow(
      /HOLDFAST_WEBHOOK_SEAL_KEY/,
    );
  });
});
