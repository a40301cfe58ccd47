import { randomBytes, randomUUID } from 'node:crypto';
import { mkdtempSync, readFileSync, statSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { ConfigError } from '@holdfast/platform';
import { SecretsKeyring } from './secrets-keyring.js';
import {
  legacyUnsubscribeKeys,
  loadUnsubscribeKeys,
  parseUnsubscribeKeys,
  signUnsubscribeToken,
  UnsubscribeKeys,
  verifyUnsubscribeToken,
} from './unsubscribe-token.js';

const k1 = { id: 'u1', key: randomBytes(32) };
const k2 = { id: 'u2', key: randomBytes(32) };
const subject = { accountId: randomUUID(), customerId: randomUUID(), channel: 'email' as const };
const b64 = (n = 32) => randomBytes(n).toString('base64');

describe('HOLDFAST_UNSUBSCRIBE_KEYS', () => {
  it('given id:base64 entries, when parsed, then the first is current and every one is kept', () => {
    const [a, b] = [b64(), b64()];
    const keys = parseUnsubscribeKeys(` u2:${a} , u1:${b} `);
    expect(keys.map((k) => [k.id, k.key.toString('base64')])).toEqual([
      ['u2', a],
      ['u1', b],
    ]);
    expect(new UnsubscribeKeys(keys).currentKeyId).toBe('u2');
  });

  it.each([
    ['', 'invalid configuration: HOLDFAST_UNSUBSCRIBE_KEYS is empty'],
    [
      `u1:${b64(16)}`,
      'invalid configuration: HOLDFAST_UNSUBSCRIBE_KEYS must be id:base64 entries of 32-byte keys, current first',
    ],
    [
      b64(),
      'invalid configuration: HOLDFAST_UNSUBSCRIBE_KEYS must be id:base64 entries of 32-byte keys, current first',
    ],
    [`u1:${b64()},u1:${b64()}`, 'invalid configuration: HOLDFAST_UNSUBSCRIBE_KEYS has a key id twice'],
  ])('given %j, when parsed, then a ConfigError names the setting exactly', (value, message) => {
    expect(() => parseUnsubscribeKeys(value)).toThrow(new ConfigError(message));
  });

  it('given production without the setting, when loaded, then start-up fails; elsewhere a 0600 development key is generated once', () => {
    expect(() => loadUnsubscribeKeys({ NODE_ENV: 'production' })).toThrow(
      'invalid configuration: HOLDFAST_UNSUBSCRIBE_KEYS is required in production',
    );
    const cache = mkdtempSync(join(tmpdir(), 'hf-unsub-'));
    const first = loadUnsubscribeKeys({ HOLDFAST_CACHE: cache });
    const again = loadUnsubscribeKeys({ HOLDFAST_CACHE: cache });
    expect(again.currentKeyId).toBe(first.currentKeyId);
    expect(first.currentKeyId).toMatch(/^dev-[0-9a-f]{6}$/);
    expect(statSync(join(cache, 'unsubscribe-key')).mode & 0o777).toBe(0o600);
    expect(readFileSync(join(cache, 'unsubscribe-key'), 'utf8')).toMatch(
      /^dev-[0-9a-f]{6}:[A-Za-z0-9+/=]{44}\n$/,
    );
    // The secrets key of the same cache is another file: the two are never the same key.
    const set = loadUnsubscribeKeys({ HOLDFAST_UNSUBSCRIBE_KEYS: `u9:${b64()}`, NODE_ENV: 'production' });
    expect(set.currentKeyId).toBe('u9');
  });
});

describe('unsubscribe tokens', () => {
  it('given a signed token, when verified, then it names the account, customer and channel', () => {
    const keys = new UnsubscribeKeys([k1]);
    const token = signUnsubscribeToken(keys, subject);
    expect(token).toMatch(/^[A-Za-z0-9_-]+\.[A-Za-z0-9_-]+$/);
    expect(verifyUnsubscribeToken(keys, token)).toEqual(subject);
    expect(verifyUnsubscribeToken(keys, signUnsubscribeToken(keys, { ...subject, channel: 'sms' }))).toEqual({
      ...subject,
      channel: 'sms',
    });
  });

  it('given a token whose payload names another customer, when verified, then it is refused', () => {
    const keys = new UnsubscribeKeys([k1]);
    const [payload, mac] = signUnsubscribeToken(keys, subject).split('.');
    const other = signUnsubscribeToken(keys, { ...subject, customerId: randomUUID() }).split('.')[0];
    expect(verifyUnsubscribeToken(keys, `${other}.${mac}`)).toBeNull();
    const flipped = Buffer.from(payload!, 'base64url');
    flipped[flipped.length - 2]! ^= 1;
    expect(verifyUnsubscribeToken(keys, `${flipped.toString('base64url')}.${mac}`)).toBeNull();
  });

  it('given other keys, malformed or truncated tokens, when verified, then they are refused', () => {
    const token = signUnsubscribeToken(new UnsubscribeKeys([k1]), subject);
    expect(
      verifyUnsubscribeToken(new UnsubscribeKeys([{ id: 'u1', key: randomBytes(32) }]), token),
    ).toBeNull();
    expect(verifyUnsubscribeToken(new UnsubscribeKeys([k2]), token)).toBeNull();
    for (const bad of ['', 'abc', token.slice(0, -2), `${token}x`, token.replace('.', '')])
      expect(verifyUnsubscribeToken(new UnsubscribeKeys([k1]), bad)).toBeNull();
  });

  it('given a rotation (new key first, old key kept), when verified, then old links still work and new ones are signed with the new key; once the old key is removed they stop', () => {
    const old = signUnsubscribeToken(new UnsubscribeKeys([k1]), subject);
    const rotated = new UnsubscribeKeys([k2, k1]);
    expect(verifyUnsubscribeToken(rotated, old)).toEqual(subject);
    const fresh = signUnsubscribeToken(rotated, subject);
    expect(verifyUnsubscribeToken(new UnsubscribeKeys([k2]), fresh)).toEqual(subject);
    expect(verifyUnsubscribeToken(new UnsubscribeKeys([k1]), fresh)).toBeNull();
    expect(verifyUnsubscribeToken(new UnsubscribeKeys([k2]), old)).toBeNull();
  });

  it('given a link signed before the upgrade (key derived from master key k1), when its legacy key is configured after the current one, then it verifies without the master key', () => {
    // Signed by the previous release with HOLDFAST_SECRETS_KEYS=k1:<32 bytes of 7> (a fixed vector).
    const before = 'AQJrMREREREiIkMzhERVVVVVVVVmZmZmd3dIiJmZqqqqqqqqAA.68CpWiVmLKree6yWaHW2RQ';
    const master = new SecretsKeyring([{ id: 'k1', key: Buffer.alloc(32, 7) }]);
    const legacy = legacyUnsubscribeKeys(master, ['k1']);
    expect(legacy[0]!.key.equals(Buffer.alloc(32, 7))).toBe(false);
    expect(verifyUnsubscribeToken(new UnsubscribeKeys([k1, ...legacy]), before)).toEqual({
      accountId: '11111111-2222-4333-8444-555555555555',
      customerId: '66666666-7777-4888-9999-aaaaaaaaaaaa',
      channel: 'email',
    });
    expect(verifyUnsubscribeToken(new UnsubscribeKeys([k1]), before)).toBeNull();
  });

  it('carries no address: the token is the same length whoever it is for', () => {
    const keys = new UnsubscribeKeys([k1]);
    const a = signUnsubscribeToken(keys, subject);
    const b = signUnsubscribeToken(keys, { ...subject, customerId: randomUUID() });
    expect(a.length).toBe(b.length);
    // Only the two ids, packed as bytes (a random id byte may be '@' by chance, so no regex on it):
    // the payload is the same fixed size for every customer and holds no id as text.
    const payload = Buffer.from(a.split('.')[0]!, 'base64url');
    expect(payload.length).toBe(Buffer.from(b.split('.')[0]!, 'base64url').length);
    expect(payload.toString('latin1')).not.toContain(subject.customerId);
  });
});
