import { randomBytes } from 'node:crypto';
import { describe, expect, it } from 'vitest';
import { loadConsoleConfig } from '@holdfast/console';

const CONSOLE_KEYS = `c2:${randomBytes(32).toString('base64')},c1:${randomBytes(32).toString('base64')}`;
const base = { DATABASE_URL: 'postgres://x@db/holdfast', HOLDFAST_CONSOLE_KEYS: CONSOLE_KEYS };

describe('the console configuration', () => {
  it('given an https URL, when loaded, then cookies are Secure and HSTS-worthy', () => {
    const c = loadConsoleConfig({
      ...base,
      NODE_ENV: 'production',
      HOLDFAST_CONSOLE_URL: 'https://console.example.com/',
    });
    expect(c.publicUrl).toBe('https://console.example.com');
    expect(c.secureCookies).toBe(true);
  });

  it('given plain http away from this machine in production, when loaded, then it refuses to start', () => {
    expect(() =>
      loadConsoleConfig({
        ...base,
        NODE_ENV: 'production',
        HOLDFAST_CONSOLE_URL: 'http://console.example.com',
      }),
    ).toThrow(/https/);
  });

  it('given plain http on 127.0.0.1 (npm start, docker compose), when loaded, then it starts with Secure cookies', () => {
    const c = loadConsoleConfig({
      ...base,
      NODE_ENV: 'production',
      HOLDFAST_CONSOLE_URL: 'http://127.0.0.1:8090',
    });
    expect(c.secureCookies).toBe(true);
  });

  it('given TRUST_PROXY=true, when loaded, then it refuses (a client would choose its own address)', () => {
    expect(() => loadConsoleConfig({ ...base, TRUST_PROXY: 'true' })).toThrow(/TRUST_PROXY/);
  });

  it('given nothing, when loaded, then the defaults: port 8090, 12 h sessions, 30 min idle', () => {
    const c = loadConsoleConfig(base);
    expect(c.port).toBe(8090);
    expect(c.publicUrl).toBe('http://127.0.0.1:8090');
    expect(c.sessionTtlMs).toBe(12 * 3600_000);
    expect(c.idleTimeoutMs).toBe(30 * 60_000);
  });

  it('given production without HOLDFAST_CONSOLE_KEYS, when loaded, then it refuses (no made-up key seals a second factor)', () => {
    expect(() =>
      loadConsoleConfig({
        DATABASE_URL: base.DATABASE_URL,
        NODE_ENV: 'production',
        HOLDFAST_CONSOLE_URL: 'https://console.example.com',
      }),
    ).toThrow(/HOLDFAST_CONSOLE_KEYS/);
  });

  it('given two console keys, when loaded, then the first is current (the second only opens what it sealed)', () => {
    const c = loadConsoleConfig(base);
    expect(c.consoleKeys.currentKeyId).toBe('c2');
    expect(c.consoleKeys.keyIds).toEqual(['c2', 'c1']);
  });

  it('given no HOLDFAST_WEBHOOK_SEAL_KEY, when loaded, then none (the page says why it cannot create); a malformed one refuses to start', () => {
    expect(loadConsoleConfig(base).webhookSealKey).toBeNull();
    expect(() => loadConsoleConfig({ ...base, HOLDFAST_WEBHOOK_SEAL_KEY: 'k1:abc' })).toThrow(
      /HOLDFAST_WEBHOOK_SEAL_KEY/,
    );
  });
});
