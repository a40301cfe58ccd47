import { randomBytes } from 'node:crypto';
import { describe, expect, it } from 'vitest';
import { loadDispatcherConfig } from '../src/config.js';

const base = { DATABASE_URL: 'postgres://x@127.0.0.1/db' };

describe('loadDispatcherConfig: secrets key and outbound policy', () => {
  it('fails fast in production without HOLDFAST_SECRETS_KEYS (never a made-up key)', () => {
    expect(() => loadDispatcherConfig({ ...base, NODE_ENV: 'production' })).toThrow(
      'invalid configuration: HOLDFAST_SECRETS_KEYS is required in production',
    );
  });

  it('takes the configured keys and a strict outbound policy by default', () => {
    const c = loadDispatcherConfig({
      ...base,
      NODE_ENV: 'production',
      HOLDFAST_SECRETS_KEYS: `k2:${randomBytes(32).toString('base64')},k1:${randomBytes(32).toString('base64')}`,
    });
    expect(c.keyring.currentKeyId).toBe('k2');
    expect(c.outbound).toEqual({
      allowHttp: false,
      allow: [],
      connectTimeoutMs: 5000,
      maxResponseBytes: 65536,
    });
  });

  it('refuses a malformed allow-list', () => {
    expect(() =>
      loadDispatcherConfig({
        ...base,
        HOLDFAST_SECRETS_KEYS: `k1:${randomBytes(32).toString('base64')}`,
        HOLDFAST_OUTBOUND_ALLOW: '10.0.0.0/8',
      }),
    ).toThrow(
      'HOLDFAST_OUTBOUND_ALLOW: "10.0.0.0/8" is not an allow-list entry like 127.0.0.1:* or [::1]:8080',
    );
  });
});
