import { describe, expect, it } from 'vitest';
import { BodyBudget, bodyRefusal, type BodyHoldings } from '../../src/http/body-budget.js';

const SHARES = { perKeyBytes: 64, perAccountBytes: 128 };
const held = (
  total: number,
  keys: [string, number][] = [],
  accounts: [string, number][] = [],
): BodyHoldings => ({
  total,
  byKey: new Map(keys),
  byAccount: new Map(accounts),
});
const k1 = { keyId: 'k1', accountId: 'a1' };

describe('bodyRefusal', () => {
  it.each([
    ['nothing held, a body within every share', held(0), 64, k1, null],
    ['the key would go over its share', held(60, [['k1', 60]], [['a1', 60]]), 5, k1, 'key'],
    [
      'another key of the account: the account would go over its share',
      held(120, [['k1', 60]], [['a1', 120]]),
      10,
      { keyId: 'k2', accountId: 'a1' },
      'account',
    ],
    [
      'the tile token (no key): the account share only',
      held(120, [], [['a1', 120]]),
      10,
      { keyId: null, accountId: 'a1' },
      'account',
    ],
    ['within its shares, the gateway full', held(250, [['k9', 64]], [['a9', 128]]), 10, k1, 'gateway'],
    [
      'over its share and the gateway full: the key is refused as itself',
      held(256, [['k1', 64]], [['a1', 64]]),
      1,
      k1,
      'key',
    ],
    ['unauthenticated (no owners): the gateway only', held(250), 6, null, null],
    ['unauthenticated, over the gateway', held(250), 7, null, 'gateway'],
  ] as const)('given %s, then %s', (_name, h, bytes, owners, expected) => {
    expect(bodyRefusal(h, bytes, owners, 256, SHARES)).toBe(expected);
  });
});

describe('BodyBudget', () => {
  it('given reservations and releases, then what each key and account holds is counted and forgotten at zero', () => {
    const b = new BodyBudget(256, SHARES);
    expect(b.reserve(40, k1)).toBeNull();
    expect(b.reserve(40, k1)).toBe('key');
    expect(b.reserve(24, k1)).toBeNull();
    expect(b.heldByAccount('a1')).toBe(64);
    expect(b.reserve(64, { keyId: 'k2', accountId: 'a1' })).toBeNull();
    expect(b.reserve(1, { keyId: 'k3', accountId: 'a1' })).toBe('account');
    expect(b.inFlight).toBe(128);
    b.release(64, k1);
    expect(b.reserve(40, k1)).toBeNull();
    b.release(40, k1);
    b.release(64, { keyId: 'k2', accountId: 'a1' });
    expect([b.inFlight, b.heldByAccount('a1')]).toEqual([0, 0]);
  });

  it('given no shares, then the gateway-wide limit alone applies (503, as before the shares)', () => {
    const b = new BodyBudget(100);
    expect(b.reserve(100, k1)).toBeNull();
    expect(b.reserve(1, { keyId: 'k2', accountId: 'a2' })).toBe('gateway');
  });
});
