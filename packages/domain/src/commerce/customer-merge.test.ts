import { describe, expect, it } from 'vitest';
import { evolveCustomer, newCustomer, type CustomerPatch, type CustomerState } from './customer-merge.js';
import { InvalidInstantError, instantKey } from './instant.js';

const A = '00000000-0000-4000-8000-000000000001';
const T0 = '2025-01-01T00:00:00Z';
const at = (s: number) => new Date(Date.UTC(2025, 0, 1, 0, 0, s)).toISOString();
const keys = { externalId: null, email: null, phone: null };

/** given(patches applied in order).when(patch).then(fields): each step received one second later. */
function given(...patches: CustomerPatch[]) {
  let state = newCustomer(A, 'c1', T0);
  patches.forEach((p, i) => (state = evolveCustomer(state, p, at(i + 1))));
  return {
    when: (patch: CustomerPatch) => {
      const next = evolveCustomer(state, patch, at(patches.length + 1));
      return {
        then: (expected: Partial<CustomerState>, changed = true) => {
          expect(next).toMatchObject(expected);
          expect(next !== state).toBe(changed);
        },
      };
    },
  };
}

describe('customer merge (spec: customer row)', () => {
  it('a new customer has no consent and source_label custom-api', () => {
    expect(newCustomer(A, 'c1', T0)).toMatchObject({
      consentMarketingEmail: false,
      consentSms: false,
      consentSuppressed: false,
      consentBounced: false,
      sourceLabel: 'custom-api',
      createdAt: T0,
      updatedAt: T0,
    });
  });

  const consent = {
    consentMarketingEmail: true,
    consentSms: true,
    consentSuppressed: false,
    consentBounced: false,
  };
  it.each([
    ['sms=false only', { consentSms: false }, { ...consent, consentSms: false }],
    ['suppressed=true only', { consentSuppressed: true }, { ...consent, consentSuppressed: true }],
    ['marketing_email=null keeps', { consentMarketingEmail: null }, consent],
    ['no consent object keeps all four', {}, consent],
  ] as const)('consent: omitted keys keep their current value (%s)', (_, patch, expected) => {
    given({ ...keys, ...consent })
      .when({ ...keys, ...patch })
      .then(expected, Object.keys(patch).length > 0 && Object.values(patch)[0] !== null);
  });

  it.each([
    ['external_id', { externalId: 'e2' }, { externalId: 'e2' }],
    ['email', { email: 'b@x.co' }, { email: 'b@x.co' }],
    ['phone', { phone: '+15125550101' }, { phone: '+15125550101' }],
    ['name', { name: 'Bo' }, { name: 'Bo' }],
    ['source_label', { sourceLabel: 'shopify' }, { sourceLabel: 'shopify' }],
    ['subscription_status', { subscriptionStatus: 'paused' }, { subscriptionStatus: 'paused' }],
  ] as const)('a carried %s wins; null keeps', (_, patch, expected) => {
    const start = {
      externalId: 'e1',
      email: 'a@x.co',
      phone: '+15125550100',
      name: 'Ann',
      sourceLabel: 'pos',
      subscriptionStatus: 'active',
    };
    given(start)
      .when({ ...keys, ...patch })
      .then(expected);
    given(start).when(keys).then(start, false);
  });

  it('replaces the address as a whole, and only when one is carried', () => {
    const home = { street: '1 Main', city: 'Austin', state: 'TX', zip: '78701', country: 'US' };
    const po = { street: null, city: null, state: null, zip: '10001', country: 'US' };
    given({ ...keys, address: home })
      .when({ ...keys, address: po })
      .then({ address: po });
    given({ ...keys, address: home })
      .when({ ...keys, address: null })
      .then({ address: home }, false);
  });

  it.each([
    ['none stored: the carried one', [], '2024-05-01T00:00:00Z', '2024-05-01T00:00:00Z', true],
    ['earlier wins', ['2024-05-01T00:00:00Z'], '2024-03-01T00:00:00Z', '2024-03-01T00:00:00Z', true],
    ['later loses', ['2024-05-01T00:00:00Z'], '2024-06-01T00:00:00Z', '2024-05-01T00:00:00Z', false],
    [
      'to the microsecond',
      ['2024-05-01T00:00:00.000200Z'],
      '2024-05-01T00:00:00.000100Z',
      '2024-05-01T00:00:00.000100Z',
      true,
    ],
    [
      'other offsets compare as instants',
      ['2024-05-01T00:00:00Z'],
      '2024-05-01T01:00:00+02:00',
      '2024-05-01T01:00:00+02:00',
      true,
    ],
  ] as const)(
    'subscription_started_at is write-once, earliest wins: %s',
    (_, before, carried, expected, changed) => {
      given(...before.map((s) => ({ ...keys, subscriptionStartedAt: s })))
        .when({ ...keys, subscriptionStartedAt: carried })
        .then({ subscriptionStartedAt: expected }, changed);
    },
  );

  it('moves updated_at only on a change: a re-post of the same data writes nothing', () => {
    const p = { externalId: 'e1', email: 'a@x.co', phone: null, name: 'Ann' };
    given(p)
      .when(p)
      .then({ updatedAt: at(1) }, false);
    given(p)
      .when({ ...p, sourceLabel: 'shopify' })
      .then({ updatedAt: at(2), createdAt: T0 });
    given(p)
      .when({ ...p, email: 'b@x.co' })
      .then({ email: 'b@x.co', updatedAt: at(2) });
  });

  it('given a change of personal values alone (name, address, the value behind the same index), then the row is written but updated_at stays: a replay after an erasure folds the same', () => {
    const p = { externalId: 'e1', email: 'idx-a', emailClear: 'a@x.co', phone: null, name: 'Ann' };
    given(p)
      .when({ ...p, name: 'Anna' })
      .then({ name: 'Anna', updatedAt: at(1) }, true);
    const address = { street: '1 Main St', city: 'Austin', state: 'TX', zip: '73301', country: 'US' };
    given(p)
      .when({ ...p, address })
      .then({ address, updatedAt: at(1) }, true);
    given({ ...p, emailClear: null })
      .when(p)
      .then({ emailClear: 'a@x.co', updatedAt: at(1) }, true);
  });

  it('refuses a timestamp it cannot order', () => {
    expect(() => instantKey('yesterday')).toThrow(new InvalidInstantError('yesterday'));
    expect(new InvalidInstantError('x')).toMatchObject({ isRetriable: false, name: 'InvalidInstantError' });
  });
});
