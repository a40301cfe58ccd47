import { describe, expect, it } from 'vitest';
import { decideIdentity, type Identity, type IdentityKeys } from './identity.js';

const A = 'a';
const c = (customerId: string, over: Partial<Identity> = {}): Identity => ({
  accountId: A,
  customerId,
  externalId: null,
  email: null,
  phone: null,
  createdUs: 0,
  ...over,
});
const k = (over: Partial<IdentityKeys>): IdentityKeys => ({
  externalId: null,
  email: null,
  phone: null,
  ...over,
});

// given the account's customers, when a record carries keys, then this decision.
const customers = [
  c('c1', { externalId: 'e1', email: 'x@a.co', createdUs: 1 }),
  c('c2', { email: 'y@a.co', phone: '+1', createdUs: 2 }),
  c('c3', { externalId: 'e3', email: 'shared@a.co', phone: '+3', createdUs: 3 }),
  c('c4', { email: 'shared@a.co', phone: '+3', createdUs: 3 }),
  c('c5', { externalId: 'e5', email: 'family@a.co', createdUs: 1 }),
];

describe('identity resolution (spec: external_id → email → phone → create)', () => {
  it.each([
    [
      'external_id first, over a matching email',
      k({ externalId: 'e1', email: 'y@a.co' }),
      'c1',
      'provider_id',
    ],
    ['email when external_id is absent', k({ email: 'y@a.co' }), 'c2', 'email'],
    [
      'email when the external_id is unknown but compatible',
      k({ externalId: 'new', email: 'y@a.co' }),
      'c2',
      'email',
    ],
    ['phone when no email matches', k({ email: 'z@a.co', phone: '+1' }), 'c2', 'phone'],
    ['shared email: the earliest created, then the smaller id', k({ email: 'shared@a.co' }), 'c3', 'email'],
    [
      'shared email: a contradicting external id is someone else',
      k({ externalId: 'e9', email: 'shared@a.co' }),
      'c4',
      'email',
    ],
    ['shared phone: same rule', k({ externalId: 'e9', phone: '+3' }), 'c4', 'phone'],
  ] as const)('%s', (_, keys, customerId, method) => {
    expect(decideIdentity(customers, keys)).toMatchObject({
      kind: 'matched',
      identity: { customerId },
      method,
    });
  });

  it.each([
    ['no customer holds any key', k({ externalId: 'e9', email: 'new@a.co', phone: '+9' })],
    ['the only holder of the email has another external id', k({ externalId: 'e9', email: 'family@a.co' })],
  ])('creates a customer when %s', (_, keys) => {
    expect(decideIdentity(customers, keys)).toEqual({ kind: 'create' });
  });

  it('refuses a record with no external_id, email or phone', () => {
    expect(decideIdentity(customers, k({}))).toEqual({ kind: 'refused', reason: 'no_identity' });
  });

  it('does not depend on the order customers are listed in', () => {
    const reversed = [...customers].reverse();
    for (const keys of [k({ email: 'shared@a.co' }), k({ phone: '+3' })])
      expect(decideIdentity(reversed, keys)).toEqual(decideIdentity(customers, keys));
  });
});
