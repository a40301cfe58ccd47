import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { decideIdentity } from '@holdfast/domain';
import { customerUuid } from '../../../src/projections/commerce/customer-id.js';
import { mergeCustomer, newCustomer } from '../../../src/projections/commerce/customer-state.js';
import { IdentityIndex, type Identity } from '../../../src/projections/commerce/identity-index.js';
import { instantKey } from '../../../src/projections/commerce/instant-key.js';

const A = '00000000-0000-4000-8000-000000000001';
const identity = (id: string, over: Partial<Identity>): Identity => ({
  accountId: A,
  customerId: id,
  externalId: null,
  email: null,
  phone: null,
  createdUs: 0,
  ...over,
});

describe('customerUuid', () => {
  it('is a stable RFC 4122 version-5 id per account and event', () => {
    const id = customerUuid(A, 'event-1');
    expect(id).toMatch(/^[0-9a-f]{8}-[0-9a-f]{4}-5[0-9a-f]{3}-[89ab][0-9a-f]{3}-[0-9a-f]{12}$/);
    expect(customerUuid(A, 'event-1')).toBe(id);
    expect(customerUuid(A, 'event-2')).not.toBe(id);
  });
});

describe('instantKey', () => {
  it('orders timestamps to the microsecond, offsets included', () => {
    expect(instantKey('2024-01-01T00:00:00.000123Z')).toBe(Date.UTC(2024, 0, 1) * 1000 + 123);
    expect(instantKey('2024-01-01T02:00:00+02:00')).toBe(Date.UTC(2024, 0, 1) * 1000);
    expect(instantKey('2024-01-01T00:00:00.0009Z')).toBeGreaterThan(instantKey('2024-01-01T00:00:00.0001Z'));
  });

  it('rejects an unparseable timestamp as a poison record', () => {
    expect(() => instantKey('yesterday')).toThrow('unparseable timestamp "yesterday"');
  });
});

/** The domain's rule with the index as its lookup, as the commerce fold calls it. */
const resolve = (index: IdentityIndex, keys: Parameters<typeof decideIdentity>[1]) => {
  const d = decideIdentity(index.lookup(A), keys);
  return d.kind === 'matched' ? { identity: d.identity, method: d.method } : undefined;
};

describe('IdentityIndex', () => {
  it('resolves by external id, then email, then phone', () => {
    const index = new IdentityIndex([
      identity('c1', { externalId: 'e1', email: 'x@a.co' }),
      identity('c2', { email: 'y@a.co', phone: '+1' }),
    ]);
    expect(resolve(index, { externalId: 'e1', email: 'y@a.co', phone: null })).toMatchObject({
      method: 'provider_id',
      identity: { customerId: 'c1' },
    });
    expect(resolve(index, { externalId: null, email: 'y@a.co', phone: null })).toMatchObject({
      method: 'email',
      identity: { customerId: 'c2' },
    });
    expect(resolve(index, { externalId: null, email: 'z@a.co', phone: '+1' })).toMatchObject({
      method: 'phone',
      identity: { customerId: 'c2' },
    });
    expect(resolve(index, { externalId: 'e9', email: 'x@a.co', phone: null })).toBeUndefined();
  });

  it('picks the earliest created when several customers share an email', () => {
    const index = new IdentityIndex([
      identity('c2', { email: 'h@a.co', createdUs: 5 }),
      identity('c1', { email: 'h@a.co', createdUs: 5 }),
      identity('c0', { email: 'h@a.co', externalId: 'e', createdUs: 9 }),
    ]);
    expect(resolve(index, { externalId: null, email: 'h@a.co', phone: null })?.identity.customerId).toBe(
      'c1',
    );
  });

  it('follows changed keys', () => {
    const c = identity('c1', { email: 'old@a.co' });
    const index = new IdentityIndex([c]);
    const before = { externalId: c.externalId, email: c.email, phone: c.phone };
    Object.assign(c, { externalId: 'e1', email: 'new@a.co' });
    index.reindex(c, before);
    expect(resolve(index, { externalId: null, email: 'old@a.co', phone: null })).toBeUndefined();
    expect(resolve(index, { externalId: 'e1', email: null, phone: null })?.identity).toBe(c);
  });
});

describe('mergeCustomer', () => {
  it('keeps omitted values, replaces the address whole, and keeps the earliest subscription start', () => {
    const c = newCustomer(A, 'c1', '2025-01-01T00:00:00Z');
    expect(
      mergeCustomer(
        c,
        {
          externalId: 'e1',
          email: 'a@x.co',
          phone: null,
          consentSms: true,
          subscriptionStartedAt: '2024-05-01T00:00:00Z',
        },
        '2025-01-01T00:00:01Z',
      ),
    ).toBe(true);
    mergeCustomer(
      c,
      {
        externalId: null,
        email: null,
        phone: null,
        consentSms: null,
        address: { street: 's', city: null, state: null, zip: null, country: 'US' },
      },
      '2025-01-01T00:00:02Z',
    );
    mergeCustomer(
      c,
      {
        externalId: null,
        email: 'b@x.co',
        phone: null,
        subscriptionStartedAt: '2024-03-01T00:00:00.000001Z',
      },
      '2025-01-01T00:00:03Z',
    );
    mergeCustomer(
      c,
      { externalId: null, email: null, phone: null, subscriptionStartedAt: '2024-04-01T00:00:00Z' },
      '2025-01-01T00:00:04Z',
    );
    expect(c).toMatchObject({
      externalId: 'e1',
      email: 'b@x.co',
      consentSms: true,
      consentMarketingEmail: false,
      address: { street: 's', country: 'US' },
      subscriptionStartedAt: '2024-03-01T00:00:00.000001Z',
      createdAt: '2025-01-01T00:00:00Z',
      updatedAt: '2025-01-01T00:00:03Z',
    });
  });

  it('reports no change (and keeps updated_at) when a record repeats what is stored', () => {
    const c = newCustomer(A, 'c1', '2025-01-01T00:00:00Z');
    mergeCustomer(c, { externalId: 'e1', email: 'a@x.co', phone: null, name: 'Ann' }, '2025-01-01T00:00:01Z');
    expect(
      mergeCustomer(
        c,
        { externalId: 'e1', email: 'a@x.co', phone: null, name: 'Ann' },
        '2025-01-02T00:00:00Z',
      ),
    ).toBe(false);
    expect(c.updatedAt).toBe('2025-01-01T00:00:01Z');
  });
});

describe('the domain rule decides the same through IdentityIndex as over the plain list', () => {
  const key = <T>(...values: T[]) => fc.option(fc.constantFrom(...values), { nil: null });
  const keysArb = fc.record({
    externalId: key('e1', 'e2', 'e3'),
    email: key('a@x.co', 'b@x.co'),
    phone: key('+1', '+2'),
  });
  it('on random customers, key changes and look-ups', () => {
    fc.assert(
      fc.property(
        fc.array(fc.record({ keys: keysArb, createdUs: fc.integer({ min: 0, max: 3 }) }), { maxLength: 8 }),
        fc.array(fc.record({ who: fc.nat(), keys: keysArb }), { maxLength: 6 }),
        fc.array(keysArb, { minLength: 1, maxLength: 6 }),
        (rows, changes, lookups) => {
          // External ids are unique per account: a later holder drops the key.
          const taken = new Set<string>();
          const customers = rows.map((r, i) => {
            const externalId =
              r.keys.externalId !== null && !taken.has(r.keys.externalId) ? r.keys.externalId : null;
            if (externalId !== null) taken.add(externalId);
            return identity(`c${i}`, { ...r.keys, externalId, createdUs: r.createdUs });
          });
          const index = new IdentityIndex(customers);
          for (const ch of changes) {
            const c = customers[ch.who % Math.max(1, customers.length)];
            if (!c) break;
            const before = { externalId: c.externalId, email: c.email, phone: c.phone };
            // Carried keys win (an external id held by someone else is not taken).
            if (ch.keys.externalId !== null && !customers.some((o) => o.externalId === ch.keys.externalId))
              c.externalId = ch.keys.externalId;
            if (ch.keys.email !== null) c.email = ch.keys.email;
            if (ch.keys.phone !== null) c.phone = ch.keys.phone;
            index.reindex(c, before);
          }
          for (const keys of lookups) {
            const d = decideIdentity(customers, keys);
            const found = resolve(index, keys);
            if (d.kind === 'matched') expect(found).toEqual({ identity: d.identity, method: d.method });
            else expect(found).toBeUndefined();
          }
        },
      ),
      { numRuns: 500 },
    );
  });
});
