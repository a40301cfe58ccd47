import type { CustomerRowInput } from '@holdfast/contracts';
import { describe, expect, it } from 'vitest';
import type { NormalizedCustomer } from './classify-customers.js';
import { classifyCustomers } from './classify-customers.js';
import { validateCustomersRequest } from './validate-customers.js';

const customer = (overrides: Partial<NormalizedCustomer> = {}): NormalizedCustomer => ({
  external_id: null,
  email: null,
  phone: null,
  name: null,
  address: null,
  consent: null,
  source_label: 'custom-api',
  subscription_status: null,
  subscription_started_at: null,
  ...overrides,
});
const given = (...rows: CustomerRowInput[]) => ({ whenClassified: () => classifyCustomers(rows) });

describe('validateCustomersRequest', () => {
  it('given well-formed rows with unknown fields, when validated, then they pass', () => {
    const rows = [
      { external_id: 'C1', tags: ['vip'], address: { city: 'Austin', extra: 1 } },
      { email: null },
    ];
    expect(validateCustomersRequest({ customers: rows })).toEqual({ ok: true, rows });
  });

  it.each([
    ['trial', { input: 'trial' }],
    ['Active', { input: 'Active' }],
    [5, { input: 5 }],
    [{}, {}],
  ])('given subscription_status %j, when validated, then the 422 entry is the enum one', (status, input) => {
    expect(
      validateCustomersRequest({
        customers: [{ external_id: 'C1' }, { external_id: 'C2', subscription_status: status }],
      }),
    ).toEqual({
      ok: false,
      detail: [
        {
          type: 'enum',
          loc: ['body', 'customers', 1, 'subscription_status'],
          msg: "Input should be 'active', 'paused' or 'cancelled'",
          ctx: { expected: "'active', 'paused' or 'cancelled'" },
          ...input,
        },
      ],
    });
  });

  it.each([
    [
      { external_id: 42 },
      ['external_id'],
      { type: 'string_type', msg: 'Input should be a valid string', input: 42 },
    ],
    [
      { address: 'Main St' },
      ['address'],
      {
        type: 'model_attributes_type',
        msg: 'Input should be a valid dictionary or object to extract fields from',
        input: 'Main St',
      },
    ],
    [
      { address: { zip: 78701 } },
      ['address', 'zip'],
      { type: 'string_type', msg: 'Input should be a valid string', input: 78701 },
    ],
    [
      { consent: { sms: 'yes' } },
      ['consent', 'sms'],
      {
        type: 'bool_parsing',
        msg: 'Input should be a valid boolean, unable to interpret input',
        input: 'yes',
      },
    ],
    [
      { consent: { suppressed: 1 } },
      ['consent', 'suppressed'],
      { type: 'bool_type', msg: 'Input should be a valid boolean', input: 1 },
    ],
  ])('given row %j, when validated, then the 422 entry is exact', (row, loc, entry) => {
    expect(validateCustomersRequest({ customers: [row] })).toEqual({
      ok: false,
      detail: [{ loc: ['body', 'customers', 0, ...loc], ...entry }],
    });
  });

  it('given an empty customers array, when validated, then the bound is left to the gateway', () => {
    expect(validateCustomersRequest({ customers: [] })).toEqual({ ok: true, rows: [] });
  });
});

describe('classifyCustomers', () => {
  it.each([
    ['external_id', { external_id: 'C1' }, { external_id: 'C1' }],
    ['email', { email: ' Ann@Example.com ' }, { email: 'ann@example.com' }],
    ['phone', { phone: '(415) 555-0132' }, { phone: '+14155550132' }],
  ])('given only %s, when classified, then the row is upserted', (_case, row, expected) => {
    const result = given(row).whenClassified();
    expect(result.customers).toEqual([customer(expected)]);
    expect(result.counters).toEqual({
      received: 1,
      customers_upserted: 1,
      skipped_no_identity: 0,
      skipped_suppressed: 0,
      subscriptions_applied: 0,
    });
  });

  it.each([
    ['nothing', {}],
    ['blanks', { external_id: ' ', email: '', phone: ' ' }],
    ['an invalid phone only', { phone: '555-1234', name: 'Ann' }],
  ])('given %s as identity, when classified, then the row is skipped', (_case, row) => {
    const result = given({ external_id: 'C0' }, row).whenClassified();
    expect(result.counters).toEqual({
      received: 2,
      customers_upserted: 1,
      skipped_no_identity: 1,
      skipped_suppressed: 0,
      subscriptions_applied: 0,
    });
    expect(result.errors).toEqual([{ index: 1, external_id: null, codes: ['no_usable_identity'] }]);
  });

  it.each([
    [{ street: '1 Main St' }, { street: '1 Main St', city: null, state: null, zip: null, country: 'US' }],
    [
      { city: 'Toronto', state: 'ON', country: 'CA' },
      { street: null, city: 'Toronto', state: 'ON', zip: null, country: 'CA' },
    ],
    [
      { zip: '78701', country: null },
      { street: null, city: null, state: null, zip: '78701', country: 'US' },
    ],
    [{ state: 'TX', country: 'US' }, null],
    [{ city: ' ' }, null],
    [null, null],
  ])('given address %j, when classified, then it is stored as %j', (address, stored) => {
    expect(given({ external_id: 'C1', address }).whenClassified().customers[0]?.address).toEqual(stored);
  });

  it.each([
    [{ sms: false }, { marketing_email: null, sms: false, suppressed: null, bounced: null }],
    [
      { marketing_email: true, suppressed: true, bounced: false, sms: null },
      { marketing_email: true, sms: null, suppressed: true, bounced: false },
    ],
    [{}, null],
    [{ sms: null }, null],
    [null, null],
  ])(
    'given consent %j, when classified, then it is stored as %j (null = keep current)',
    (consent, stored) => {
      expect(given({ external_id: 'C1', consent }).whenClassified().customers[0]?.consent).toEqual(stored);
    },
  );

  it.each([
    [null, 'custom-api'],
    ['', 'custom-api'],
    ['shopify-import', 'shopify-import'],
  ])('given source_label %j, when classified, then it is %s', (label, stored) => {
    expect(
      given({ external_id: 'C1', source_label: label }).whenClassified().customers[0]?.source_label,
    ).toBe(stored);
  });

  it('given subscription rows, when classified, then subscriptions_applied counts upserted rows with a status', () => {
    const result = given(
      {
        external_id: 'C1',
        subscription_status: 'active',
        subscription_started_at: '2024-01-02T00:00:00-05:00',
      },
      { external_id: 'C2', subscription_status: 'cancelled' },
      { external_id: 'C3', subscription_status: null },
      { subscription_status: 'paused' },
    ).whenClassified();
    expect(result.counters).toEqual({
      received: 4,
      customers_upserted: 3,
      skipped_no_identity: 1,
      skipped_suppressed: 0,
      subscriptions_applied: 2,
    });
    expect(result.customers[0]).toEqual(
      customer({
        external_id: 'C1',
        subscription_status: 'active',
        subscription_started_at: '2024-01-02T05:00:00.000Z',
      }),
    );
  });

  it.each([
    [
      '2024-01-02',
      '2024-01-02T00:00:00.000Z',
      [
        {
          index: 0,
          external_id: 'C1',
          code: 'naive_timestamp_read_as_utc',
          fields: ['subscription_started_at'],
        },
      ],
    ],
    [
      'last spring',
      null,
      [
        {
          index: 0,
          external_id: 'C1',
          code: 'unparseable_timestamp_ignored',
          fields: ['subscription_started_at'],
        },
      ],
    ],
    ['', null, []],
  ])(
    'given subscription_started_at %j, when classified, then it is %j with warnings',
    (startedAt, stored, warnings) => {
      const result = given({
        external_id: 'C1',
        subscription_status: 'active',
        subscription_started_at: startedAt,
      }).whenClassified();
      expect(result.customers[0]?.subscription_started_at).toBe(stored);
      expect(result.warnings).toEqual(warnings);
    },
  );

  it('given an upserted row with problems, when classified, then the dry-run warnings name them', () => {
    const result = given({
      external_id: 'C1',
      phone: '12',
      tags: ['vip'],
      address: { state: 'TX' },
    }).whenClassified();
    expect(result.warnings).toEqual([
      { index: 0, external_id: 'C1', code: 'unknown_fields_ignored', fields: ['tags'] },
      { index: 0, external_id: 'C1', code: 'invalid_phone_ignored', fields: ['phone'] },
      {
        index: 0,
        external_id: 'C1',
        code: 'address_ignored_without_street_city_or_zip',
        fields: ['address'],
      },
    ]);
  });

  it('given the same customer twice, when classified, then both rows are upserted in order', () => {
    const result = given({ external_id: 'C1', name: 'A' }, { external_id: 'C1', name: 'B' }).whenClassified();
    expect(result.customers.map((c) => c.name)).toEqual(['A', 'B']);
    expect(result.counters.customers_upserted).toBe(2);
  });
});
