import { describe, expect, it } from 'vitest';
import { ConfigError } from '@holdfast/platform';
import { loadGatewayConfig } from './config.js';

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
