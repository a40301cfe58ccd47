import { describe, expect, it } from 'vitest';
import { canonicalJson, fnv1a64 } from './canonical-hash.js';
import {
  CUSTOM_API_NO_IDENTITY_DETAIL,
  NOT_AN_OBJECT_DETAIL,
  dedupKeyForCustomApi,
  parseCustomApiEvent,
} from './custom-api-event.js';
import {
  ZERO_PARTY_NO_IDENTITY_DETAIL,
  dedupKeyForZeroParty,
  parseZeroPartySubmission,
} from './zero-party-submission.js';

describe('parseCustomApiEvent', () => {
  it('given a full event, when parsed, then it is normalised with defaults', () => {
    expect(
      parseCustomApiEvent({
        customer_id: 42,
        email: ' Ann@Example.com',
        phone: '415 555 0132',
        name: 'Ann',
        address: { city: 'Austin' },
        consent: { sms: false, marketing_email: 'yes' },
        anything_else: true,
      }),
    ).toEqual({
      ok: true,
      event: {
        external_id: '42',
        email: 'ann@example.com',
        phone: '+14155550132',
        name: 'Ann',
        address: { street: null, city: 'Austin', state: null, zip: null, country: 'US' },
        consent: { marketing_email: null, sms: false, suppressed: null, bounced: null },
        event_type: 'custom',
        source_label: 'custom-api',
      },
    });
  });

  it.each([
    [{ external_id: 'E1', customer_id: 'C1' }, 'E1'],
    [{ external_id: ' ', customer_id: 'C1' }, 'C1'],
    [{ customer_id: 'C1' }, 'C1'],
  ])('given ids %j, when parsed, then external_id is %s', (body, id) => {
    const parsed = parseCustomApiEvent(body);
    expect(parsed.ok && parsed.event.external_id).toBe(id);
  });

  it.each([
    [[], NOT_AN_OBJECT_DETAIL],
    [null, NOT_AN_OBJECT_DETAIL],
    ['x', NOT_AN_OBJECT_DETAIL],
    [{}, CUSTOM_API_NO_IDENTITY_DETAIL],
    [{ name: 'Ann', email: ' ', phone: '555-1234' }, CUSTOM_API_NO_IDENTITY_DETAIL],
    [{ email: 5, external_id: { id: 1 } }, CUSTOM_API_NO_IDENTITY_DETAIL],
  ])('given body %j, when parsed, then it is a 400 with detail %s', (body, detail) => {
    expect(parseCustomApiEvent(body)).toEqual({ ok: false, detail });
  });

  it.each([
    [{ email: 'a@b.co', event_type: 'consent_changed', source_label: 'crm' }, 'consent_changed', 'crm'],
    [{ email: 'a@b.co', event_type: '', source_label: null }, 'custom', 'custom-api'],
  ])('given %j, when parsed, then event_type and source_label are %s / %s', (body, type, label) => {
    const parsed = parseCustomApiEvent(body);
    expect(parsed.ok && [parsed.event.event_type, parsed.event.source_label]).toEqual([type, label]);
  });
});

describe('dedupKeyForCustomApi', () => {
  it('given the same event_type and external_id, when keyed, then bodies do not matter', () => {
    const a = dedupKeyForCustomApi(
      { event_type: 'custom', external_id: 'C1' },
      { customer_id: 'C1', name: 'A' },
    );
    const b = dedupKeyForCustomApi(
      { event_type: 'custom', external_id: 'C1' },
      { customer_id: 'C1', name: 'B' },
    );
    expect(a).toBe(b);
    expect(a).toMatch(/^id:[0-9a-f]{16}$/);
  });

  it.each([
    [{ event_type: 'custom', external_id: 'C2' }],
    [{ event_type: 'consent', external_id: 'C1' }],
    [{ event_type: 'custom:C', external_id: '1' }],
  ])('given %j, when keyed, then it differs from custom/C1', (event) => {
    expect(dedupKeyForCustomApi(event, {})).not.toBe(
      dedupKeyForCustomApi({ event_type: 'custom', external_id: 'C1' }, {}),
    );
  });

  it('given no external id, when keyed, then the canonical body is hashed (key order irrelevant)', () => {
    const event = { event_type: 'custom', external_id: null };
    const a = dedupKeyForCustomApi(event, { email: 'a@b.co', consent: { sms: true, bounced: false } });
    const b = dedupKeyForCustomApi(event, { consent: { bounced: false, sms: true }, email: 'a@b.co' });
    const c = dedupKeyForCustomApi(event, { email: 'a@b.co', consent: { sms: false, bounced: false } });
    expect(a).toBe(b);
    expect(a).not.toBe(c);
    expect(a).toBe(`body:${fnv1a64('{"consent":{"bounced":false,"sms":true},"email":"a@b.co"}')}`);
  });
});

describe('parseZeroPartySubmission', () => {
  it('given a full submission, when parsed, then it is normalised', () => {
    expect(
      parseZeroPartySubmission({
        email: ' A@B.co ',
        customer_id: 7,
        interests: [' tea ', 3, '', 'coffee'],
        attributes: { roast: 'dark' },
        source_label: 'quiz',
        quiz_version: 2,
        completed_at: '2024-01-02T10:00:00+01:00',
      }),
    ).toEqual({
      ok: true,
      submission: {
        email: 'a@b.co',
        external_customer_id: '7',
        interests: ['tea', 'coffee'],
        attributes: { roast: 'dark' },
        source_label: 'quiz',
        quiz_version: '2',
        completed_at: '2024-01-02T09:00:00.000Z',
      },
    });
  });

  it.each([
    [{ external_customer_id: 'X', external_id: 'Y', customer_id: 'Z' }, 'X'],
    [{ external_id: 'Y', customer_id: 'Z' }, 'Y'],
    [{ customer_id: 'Z' }, 'Z'],
  ])('given ids %j, when parsed, then external_customer_id is %s', (body, id) => {
    const parsed = parseZeroPartySubmission(body);
    expect(parsed.ok && parsed.submission.external_customer_id).toBe(id);
  });

  it.each([
    [
      { email: 'a@b.co', interests: 'tea', attributes: [1], completed_at: 'today' },
      { interests: [], attributes: null, completed_at: null },
    ],
  ])('given malformed optional keys %j, when parsed, then they are emptied', (body, expected) => {
    const parsed = parseZeroPartySubmission(body);
    expect(parsed.ok && parsed.submission).toMatchObject(expected);
  });

  it.each([
    [[1], NOT_AN_OBJECT_DETAIL],
    [{ phone: '4155550132', interests: ['tea'] }, ZERO_PARTY_NO_IDENTITY_DETAIL],
    [{ email: '  ' }, ZERO_PARTY_NO_IDENTITY_DETAIL],
  ])('given body %j, when parsed, then it is a 400 with detail %s', (body, detail) => {
    expect(parseZeroPartySubmission(body)).toEqual({ ok: false, detail });
  });

  it('given the same content in another key order or email case, when keyed, then the key is the same; changed answers give a new key', () => {
    const key = (body: unknown) => {
      const parsed = parseZeroPartySubmission(body);
      return parsed.ok ? dedupKeyForZeroParty(parsed.submission) : '';
    };
    const a = key({ email: 'a@b.co', attributes: { x: 1, y: 2 } });
    expect(key({ attributes: { y: 2, x: 1 }, email: 'A@B.CO' })).toBe(a);
    expect(key({ email: 'a@b.co', attributes: { x: 1, y: 3 } })).not.toBe(a);
    expect(a).toMatch(/^zp:[0-9a-f]{16}$/);
  });
});

describe('canonicalJson and fnv1a64', () => {
  it.each([
    [{ b: 1, a: [{ d: 2, c: 3 }] }, '{"a":[{"c":3,"d":2}],"b":1}'],
    [{ a: undefined, b: null }, '{"b":null}'],
    [[undefined, NaN, 'é'], '[null,null,"é"]'],
    ['x', '"x"'],
  ])('given %j, when canonicalised, then it is %s', (value, text) => {
    expect(canonicalJson(value)).toBe(text);
  });

  it.each([
    ['', 'cbf29ce484222325'],
    ['a', 'af63dc4c8601ec8c'],
    ['foobar', '85944171f73967e8'],
  ])('given %j, when hashed, then FNV-1a 64 is %s (reference vectors)', (text, hex) => {
    expect(fnv1a64(text)).toBe(hex);
  });
});
