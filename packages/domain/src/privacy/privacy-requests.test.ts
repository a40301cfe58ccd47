import { describe, expect, it } from 'vitest';
import { classifyCustomers } from '../ingest/customers/classify-customers.js';
import { classifyOrders } from '../ingest/orders/classify-orders.js';
import { NO_IDENTIFIER_ISSUE, validatePersonRequest } from './person-request.js';
import { suppressionCheck, type SuppressedIndexes } from './suppression.js';

describe('validatePersonRequest', () => {
  it('given identifiers, when validated, then they are normalised like ingest stores them', () => {
    expect(
      validatePersonRequest(
        { external_id: 'c-1', email: ' Ann@Example.COM ', phone: '(415) 555-0132', suppress: true },
        'erasure',
      ),
    ).toEqual({
      ok: true,
      request: {
        identifiers: { externalId: 'c-1', email: 'ann@example.com', phone: '+14155550132' },
        suppress: true,
      },
    });
  });

  it.each([
    ['an empty body', {}],
    ['blank identifiers only', { external_id: ' ', email: '', phone: null }],
    ['suppress alone', { suppress: true }],
  ])('given %s, when validated, then 422 at [body]', (_case, body) => {
    expect(validatePersonRequest(body, 'erasure')).toEqual({ ok: false, detail: [NO_IDENTIFIER_ISSUE] });
  });

  it('given an erasure naming a browser only, when validated, then it is the anonymous id, verbatim', () => {
    expect(validatePersonRequest({ anonymous_id: ' Anon-1 ' }, 'erasure')).toEqual({
      ok: true,
      request: {
        identifiers: { externalId: null, email: null, phone: null, anonymousId: ' Anon-1 ' },
        suppress: false,
      },
    });
    expect(validatePersonRequest({ anonymous_id: '  ' }, 'erasure')).toEqual({
      ok: false,
      detail: [NO_IDENTIFIER_ISSUE],
    });
  });

  it('given an anonymous id on an export, when validated, then extra_forbidden (erasures only)', () => {
    expect(validatePersonRequest({ email: 'a@b.co', anonymous_id: 'x' }, 'export')).toMatchObject({
      ok: false,
      detail: [{ type: 'extra_forbidden', loc: ['body', 'anonymous_id'] }],
    });
  });

  it('given a bad email and a bad phone, when validated, then one entry each, without the values', () => {
    expect(validatePersonRequest({ email: 'ann.example.com', phone: '555-12' }, 'erasure')).toEqual({
      ok: false,
      detail: [
        { type: 'value_error', loc: ['body', 'email'], msg: 'Value error, not a valid email address' },
        { type: 'value_error', loc: ['body', 'phone'], msg: 'Value error, not a valid phone number' },
      ],
    });
  });

  it('given suppress on an export or an unknown field, when validated, then extra_forbidden', () => {
    const r = validatePersonRequest({ email: 'a@b.co', suppress: true }, 'export');
    expect(r).toMatchObject({ ok: false, detail: [{ type: 'extra_forbidden', loc: ['body', 'suppress'] }] });
    const wrongType = validatePersonRequest({ email: 42 }, 'erasure');
    expect(wrongType).toMatchObject({ ok: false, detail: [{ type: 'string_type', loc: ['body', 'email'] }] });
  });
});

/** Suppressions of a given test: the "index" is a readable stand-in (kind:value). */
const fakeIndex = (kind: string, value: string) => `${kind}:${value}`;
const suppressed = (o: Partial<Record<keyof SuppressedIndexes, string[]>>): SuppressedIndexes => ({
  externalId: new Set(o.externalId ?? []),
  email: new Set(o.email ?? []),
  phone: new Set(o.phone ?? []),
});

describe('suppressionCheck', () => {
  it('given no suppression, then there is no check at all (ingest pays nothing)', () => {
    expect(suppressionCheck(suppressed({}), fakeIndex)).toBeUndefined();
  });

  it('given a suppressed email, then any row naming it is suppressed, whatever its other ids', () => {
    const check = suppressionCheck(suppressed({ email: ['email:ann@example.com'] }), fakeIndex)!;
    expect(check({ externalId: 'new-id', email: 'ann@example.com', phone: null })).toBe(true);
    expect(check({ externalId: 'ann@example.com', email: null, phone: null })).toBe(false);
    expect(check({ externalId: null, email: 'bob@example.com', phone: '+14155550132' })).toBe(false);
  });
});

describe('classification with suppressions', () => {
  const order = (o: Record<string, unknown>) => ({
    order_id: 'A1',
    customer_id: 'C1',
    order_date: '2024-01-02T10:00:00Z',
    order_amount: 10,
    product_name: 'Tea',
    ...o,
  });

  it('given a suppressed customer id, when orders are classified, then its rows are dropped with suppressed_identity', () => {
    const check = suppressionCheck(suppressed({ externalId: ['external_id:C9'] }), fakeIndex);
    const c = classifyOrders(
      [
        order({ order_id: 'A1', customer_id: 'C9' }),
        order({ order_id: 'A2', customer_id: 'C1' }),
        order({ order_id: 'A3', customer_id: 'C9', order_amount: 'x' }),
      ],
      { now: new Date(), suppressed: check },
    );
    expect(c.accepted.map((o) => o.order_id)).toEqual(['A2']);
    expect(c.counters).toMatchObject({ received: 3, accepted: 1, dropped_invalid: 1, dropped_suppressed: 1 });
    expect(c.errors).toEqual([
      { index: 0, order_id: 'A1', codes: ['suppressed_identity'] },
      { index: 2, order_id: 'A3', codes: ['unparseable_order_date_or_amount'] },
    ]);
  });

  it('given a suppressed phone, when customers are classified, then the row is skipped with suppressed_identity', () => {
    const check = suppressionCheck(suppressed({ phone: ['phone:+14155550132'] }), fakeIndex);
    const c = classifyCustomers([{ external_id: 'C1', phone: '415 555 0132' }, { external_id: 'C2' }, {}], {
      suppressed: check,
    });
    expect(c.customers.map((x) => x.external_id)).toEqual(['C2']);
    expect(c.counters).toEqual({
      received: 3,
      customers_upserted: 1,
      skipped_no_identity: 1,
      skipped_suppressed: 1,
      subscriptions_applied: 0,
    });
    expect(c.errors[0]).toEqual({ index: 0, external_id: 'C1', codes: ['suppressed_identity'] });
  });
});
