import { randomBytes } from 'node:crypto';
import { mkdtempSync, readFileSync, statSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { loadSecretsKeyring, parseSecretsKeys, SecretsKeyring } from './secrets-keyring.js';

const k = (id: string) => ({ id, key: randomBytes(32) });

describe('SecretsKeyring (envelope encryption, AES-256-GCM)', () => {
  it('seals with a fresh data key per secret and opens only with the same row context', () => {
    const ring = new SecretsKeyring([k('k1')]);
    const a = ring.seal('whsec_abc', 'row-1');
    const b = ring.seal('whsec_abc', 'row-1');
    expect(a.keyId).toBe('k1');
    expect(a.ciphertext.equals(b.ciphertext)).toBe(false);
    expect(a.wrappedKey.equals(b.wrappedKey)).toBe(false);
    expect(a.ciphertext.includes(Buffer.from('whsec_abc'))).toBe(false);
    expect(ring.open(a, 'row-1')).toBe('whsec_abc');
    expect(() => ring.open(a, 'row-2')).toThrow('the secret does not open with its data key');
    const tampered = { ...a, ciphertext: Buffer.from(a.ciphertext) };
    tampered.ciphertext[tampered.ciphertext.length - 1]! ^= 1;
    expect(() => ring.open(tampered, 'row-1')).toThrow('the secret does not open with its data key');
  });

  it('rewraps the data key under the current master key, leaving the ciphertext as it is', () => {
    const k1 = k('k1');
    const k2 = k('k2');
    const old = new SecretsKeyring([k1]).seal('whsec_x', 'r');
    const both = new SecretsKeyring([k2, k1]);
    const moved = both.rewrap(old);
    expect(moved.keyId).toBe('k2');
    expect(moved.ciphertext.equals(old.ciphertext)).toBe(true);
    expect(new SecretsKeyring([k2]).open(moved, 'r')).toBe('whsec_x');
    expect(() => new SecretsKeyring([k2]).open(old, 'r')).toThrow(
      'no master key "k1" in HOLDFAST_SECRETS_KEYS',
    );
    // A key id that names the wrong key does not open either.
    expect(() => new SecretsKeyring([{ id: 'k1', key: k2.key }]).open(old, 'r')).toThrow(
      'the data key does not open with master key "k1"',
    );
  });

  it('parses HOLDFAST_SECRETS_KEYS strictly', () => {
    const b = randomBytes(32).toString('base64');
    expect(parseSecretsKeys(`k2:${b}, k1:${b}`).map((x) => x.id)).toEqual(['k2', 'k1']);
    const msg =
      'invalid configuration: HOLDFAST_SECRETS_KEYS must be id:base64 entries of 32-byte keys, current first';
    expect(() => parseSecretsKeys('k1:' + randomBytes(16).toString('base64'))).toThrow(msg);
    expect(() => parseSecretsKeys(b)).toThrow(msg);
    expect(() => parseSecretsKeys(`k1:${b},k1:${b}`)).toThrow('HOLDFAST_SECRETS_KEYS has a key id twice');
  });

  it('fails fast in production without a key; elsewhere generates one local key, 0600, and reuses it', () => {
    expect(() => loadSecretsKeyring({ NODE_ENV: 'production' })).toThrow(
      'invalid configuration: HOLDFAST_SECRETS_KEYS is required in production',
    );
    const cache = mkdtempSync(join(tmpdir(), 'holdfast-keys-'));
    const first = loadSecretsKeyring({ HOLDFAST_CACHE: cache });
    const second = loadSecretsKeyring({ HOLDFAST_CACHE: cache });
    expect(first.currentKeyId).toMatch(/^dev-[0-9a-f]{6}$/);
    expect(second.currentKeyId).toBe(first.currentKeyId);
    expect(second.open(first.seal('whsec_y', 'r'), 'r')).toBe('whsec_y');
    const file = join(cache, 'secrets-key');
    expect(statSync(file).mode & 0o777).toBe(0o600);
    expect(readFileSync(file, 'utf8')).toMatch(/^dev-[0-9a-f]{6}:[A-Za-z0-9+/]{43}=\n$/);
  });
});
