import { randomBytes } from 'node:crypto';
import { inspect } from 'node:util';
import { describe, expect, expectTypeOf, it } from 'vitest';
import { InboundKeyring, SecretsKeyring } from '@holdfast/secrets';
import { ConfigError } from '@holdfast/platform';
import { loadGatewayConfig, type GatewayConfig } from '../src/config.js';

const base = { DATABASE_URL: 'postgres://127.0.0.1/x' };

describe('loadGatewayConfig: TRUST_PROXY', () => {
  it.each([
    [undefined, false],
    ['false', false],
    ['0', false],
    ['1', 1],
    ['2', 2],
    ['loopback', 'loopback'],
    ['loopback, 10.0.0.0/8 ,fd00::/8', 'loopback,10.0.0.0/8,fd00::/8'],
    ['192.0.2.10', '192.0.2.10'],
  ])('given TRUST_PROXY=%s, when loaded, then trust proxy is %j', (raw, expected) => {
    expect(loadGatewayConfig({ ...base, TRUST_PROXY: raw }).trustProxy).toBe(expected);
  });

  it.each([
    ['true', /TRUST_PROXY=true would trust any X-Forwarded-For/],
    ['TRUE', /TRUST_PROXY=true would trust any X-Forwarded-For/],
    ['0.0.0.0/0', /"0\.0\.0\.0\/0" trusts any address/],
    ['::/0', /"::\/0" trusts any address/],
    ['10.0.0.0/33', /invalid prefix length/],
    ['proxy.example.com', /is not an address/],
    ['11', /at most 10/],
  ])('given TRUST_PROXY=%s, when loaded, then start-up fails naming it', (raw, message) => {
    expect(() => loadGatewayConfig({ ...base, TRUST_PROXY: raw })).toThrow(ConfigError);
    expect(() => loadGatewayConfig({ ...base, TRUST_PROXY: raw })).toThrow(message);
  });
});

describe('loadGatewayConfig: lifting the limits', () => {
  it('given HOLDFAST_UNSAFE_LIFT_LIMITS without test mode, when loaded, then start-up fails', () => {
    expect(() => loadGatewayConfig({ ...base, HOLDFAST_UNSAFE_LIFT_LIMITS: '1' })).toThrow(
      /HOLDFAST_UNSAFE_LIFT_LIMITS is honoured only with HOLDFAST_TEST_MODE=1/,
    );
  });

  it('given both, when loaded, then the limits are lifted', () => {
    const c = loadGatewayConfig({ ...base, HOLDFAST_UNSAFE_LIFT_LIMITS: '1', HOLDFAST_TEST_MODE: '1' });
    expect([c.testMode, c.unsafeLiftLimits]).toEqual([true, true]);
  });

  it('given neither, when loaded, then the limits hold', () => {
    expect(loadGatewayConfig(base).unsafeLiftLimits).toBe(false);
  });
});

describe('loadGatewayConfig: personal data in clear (benchmark only)', () => {
  it('given HOLDFAST_UNSAFE_UNSEALED without test mode, when loaded, then start-up fails', () => {
    expect(() => loadGatewayConfig({ ...base, HOLDFAST_UNSAFE_UNSEALED: '1' })).toThrow(
      /HOLDFAST_UNSAFE_UNSEALED is honoured only with HOLDFAST_TEST_MODE=1/,
    );
  });

  it('given it with test mode, when loaded, then records go unsealed; by default they are sealed', () => {
    expect(
      loadGatewayConfig({ ...base, HOLDFAST_UNSAFE_UNSEALED: '1', HOLDFAST_TEST_MODE: '1' }).unsafeUnsealed,
    ).toBe(true);
    expect(loadGatewayConfig(base).unsafeUnsealed).toBe(false);
  });
});

describe('loadGatewayConfig: bounded resources', () => {
  it('given nothing, when loaded, then the defaults are sane', () => {
    const c = loadGatewayConfig(base);
    expect({
      budget: c.bodyBudgetBytes,
      headers: c.headersTimeoutMs,
      request: c.requestTimeoutMs,
      keepAlive: c.keepAliveTimeoutMs,
    }).toEqual({ budget: 256 * 1024 * 1024, headers: 10_000, request: 120_000, keepAlive: 5_000 });
  });

  it('given nothing, when loaded, then a key may hold 64 MiB of the body budget and an account 128 MiB', () => {
    const c = loadGatewayConfig(base);
    expect([c.bodyBudgetPerKeyBytes, c.bodyBudgetPerAccountBytes]).toEqual([
      64 * 1024 * 1024,
      128 * 1024 * 1024,
    ]);
  });

  it('given an account share below the key share, when loaded, then start-up fails naming both', () => {
    expect(() =>
      loadGatewayConfig({
        ...base,
        BODY_BUDGET_PER_KEY_BYTES: String(96 * 1024 * 1024),
        BODY_BUDGET_PER_ACCOUNT_BYTES: String(64 * 1024 * 1024),
      }),
    ).toThrow(/BODY_BUDGET_PER_ACCOUNT_BYTES must be at least BODY_BUDGET_PER_KEY_BYTES/);
  });

  it('given nothing, when loaded, then the revocation LISTEN connection is pinged every 3 s', () => {
    expect(loadGatewayConfig(base).credentialListenerPingMs).toBe(3_000);
    expect(loadGatewayConfig({ ...base, CREDENTIAL_LISTENER_PING_MS: '500' }).credentialListenerPingMs).toBe(
      500,
    );
  });

  it.each([
    [{ BODY_BUDGET_BYTES: '1000' }, /BODY_BUDGET_BYTES must be an integer/],
    [
      { HEADERS_TIMEOUT_MS: '5000', REQUEST_TIMEOUT_MS: '1000' },
      /REQUEST_TIMEOUT_MS must be at least HEADERS_TIMEOUT_MS/,
    ],
  ])('given %j, when loaded, then start-up fails', (env, message) => {
    expect(() => loadGatewayConfig({ ...base, ...env })).toThrow(message);
  });

  it('given a bad TRUST_PROXY and a bad budget, when loaded, then both are named at once', () => {
    expect(() => loadGatewayConfig({ ...base, TRUST_PROXY: 'true', BODY_BUDGET_BYTES: 'x' })).toThrow(
      /BODY_BUDGET_BYTES.*TRUST_PROXY=true/,
    );
  });
});

describe('loadGatewayConfig: keys (no master key at the public edge)', () => {
  const key = (id: string) => ({ id, b64: randomBytes(32).toString('base64') });
  const master = key('k1');
  const unsubscribe = key('u1');
  const inbound = key('i1');
  const prod = {
    ...base,
    NODE_ENV: 'production',
    HOLDFAST_UNSUBSCRIBE_KEYS: `${unsubscribe.id}:${unsubscribe.b64}`,
    HOLDFAST_INBOUND_KEYS: `${inbound.id}:${inbound.b64}`,
  };
  const hex = (b64: string) => Buffer.from(b64, 'base64').toString('hex');

  it('given production with its two keys and no HOLDFAST_SECRETS_KEYS, when loaded, then it starts with them', () => {
    const c = loadGatewayConfig(prod);
    expect([c.unsubscribeKeys.currentKeyId, c.inboundKeys.currentKeyId]).toEqual(['u1', 'i1']);
  });

  it('given HOLDFAST_SECRETS_KEYS in its environment, when loaded, then the master key is nowhere in the parsed config', () => {
    const c = loadGatewayConfig({ ...prod, HOLDFAST_SECRETS_KEYS: `${master.id}:${master.b64}` });
    // Every field, private maps of the key classes included, as node prints them (Buffers as hex).
    const everything = inspect(c, {
      depth: 20,
      showHidden: true,
      maxArrayLength: null,
      maxStringLength: null,
    });
    expect(everything).toContain(hex(unsubscribe.b64).match(/../g)!.slice(0, 8).join(' '));
    expect(everything).toContain(hex(inbound.b64).match(/../g)!.slice(0, 8).join(' '));
    expect(everything).not.toContain(hex(master.b64).match(/../g)!.slice(0, 8).join(' '));
    expect(everything).not.toContain(master.b64);
    expect(Object.values(c).some((v) => v instanceof SecretsKeyring && !(v instanceof InboundKeyring))).toBe(
      false,
    );
    // And by type: no field of the config is a master keyring.
    type MasterField = {
      [K in keyof GatewayConfig]: GatewayConfig[K] extends InboundKeyring
        ? never
        : GatewayConfig[K] extends SecretsKeyring
          ? K
          : never;
    }[keyof GatewayConfig];
    expectTypeOf<MasterField>().toBeNever();
  });

  it('given production without its keys, when loaded, then start-up fails naming both', () => {
    expect(() => loadGatewayConfig({ ...base, NODE_ENV: 'production' })).toThrow(
      new ConfigError(
        'invalid configuration: HOLDFAST_UNSUBSCRIBE_KEYS is required in production; HOLDFAST_INBOUND_KEYS is required in production',
      ),
    );
  });

  it('given a malformed key, when loaded, then the message names its setting', () => {
    expect(() => loadGatewayConfig({ ...prod, HOLDFAST_INBOUND_KEYS: 'i1:short' })).toThrow(
      'HOLDFAST_INBOUND_KEYS must be id:base64 entries of 32-byte keys, current first',
    );
  });
});
