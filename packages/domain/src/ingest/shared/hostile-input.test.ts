// The regression corpus of issue 14 for the pure validators: every input that once broke something,
// with the answer it must get now. Given/when/then, table-driven.
import { describe, expect, it } from 'vitest';
import { classifyOrders } from '../orders/classify-orders.js';
import { validateOrdersRequest } from '../orders/validate-orders.js';
import { validateCollectorRequest } from '../pixel/validate-collector-request.js';
import { checkWebhookBody } from '../webhooks/webhook-limits.js';
import { scanJsonText } from './json-text.js';
import { parseTimestamp } from './parse-timestamp.js';
import { echoable } from './validation-issue.js';

const bytes = (text: string) => new TextEncoder().encode(text);
const row = (over: Record<string, unknown> = {}) => ({
  order_id: 'A1',
  customer_id: 'C1',
  order_date: '2024-01-02T10:00:00Z',
  order_amount: 12.5,
  product_name: 'Tea',
  ...over,
});

describe('scanJsonText', () => {
  it.each([
    ['deep nesting (10,000 levels)', `{"a":${'['.repeat(10_000)}${']'.repeat(10_000)}}`, 'json_too_deep', 36],
    ['33 levels', `${'['.repeat(33)}${']'.repeat(33)}`, 'json_too_deep', 32],
    ['\\u0000 in a value', '{"a":"Tea\\u0000Bag"}', 'string_unsupported_character', 9],
    ['\\u0000 in a key', '{"a\\u0000":1}', 'string_unsupported_character', 3],
    ['an unpaired high surrogate', '{"a":"\\ud800"}', 'string_unsupported_character', 6],
    [
      'a high surrogate followed by a non-surrogate',
      '{"a":"\\ud800\\u0041"}',
      'string_unsupported_character',
      6,
    ],
    ['an unpaired low surrogate', '["\\uDC00"]', 'string_unsupported_character', 2],
  ])('given %s, when scanned, then it is refused at its byte', (_label, text, type, position) => {
    expect(scanJsonText(bytes(text))).toEqual({
      type,
      loc: ['body', position],
      msg: expect.any(String),
      ctx: { position },
    });
  });

  it.each([
    ['32 levels', `${'['.repeat(32)}${']'.repeat(32)}`],
    ['brackets inside strings', `{"a":"${'['.repeat(100)}"}`],
    ['an escaped quote before brackets', `{"a":"\\"[[[[","b":1}`],
    ['a paired surrogate escape', '{"a":"\\ud83d\\ude00"}'],
    ['other escapes', '{"a":"\\n\\t\\\\\\u0041\\/"}'],
    ['a raw emoji', '{"a":"🍵"}'],
    ['malformed JSON (left to the parser)', '{"a":'],
  ])('given %s, when scanned, then it passes', (_label, text) => {
    expect(scanJsonText(bytes(text))).toBeNull();
  });
});

describe('parseTimestamp at the edges of what PostgreSQL stores', () => {
  it.each([
    ['+275760-09-13T00:00:00Z'],
    ['0000-01-01T00:00:00Z'],
    ['0001-01-01T00:00:00+00:01'],
    ['9999-12-31T23:30:00-05:00'],
  ])('given %s, when parsed, then it is unparseable', (text) => {
    expect(parseTimestamp(text)).toBeNull();
  });

  it.each([
    ['0001-01-01T00:00:00Z', '0001-01-01T00:00:00.000Z'],
    ['9999-12-31T23:59:59.999Z', '9999-12-31T23:59:59.999Z'],
    ['0001-01-02T10:00:00+23:59', '0001-01-01T10:01:00.000Z'],
  ])('given %s, when parsed, then it is %s', (text, iso) => {
    expect(parseTimestamp(text)?.iso).toBe(iso);
  });
});

describe('orders that PostgreSQL refused after the gateway accepted them', () => {
  it.each([
    ['order_amount 1e300 (numeric(18,4) overflow)', { order_amount: 1e300 }],
    ['order_amount 2^53 + 1', { order_amount: Number('9007199254740993') }],
    ['order_amount 10^14', { order_amount: 1e14 }],
    ['refunded_amount 1e300', { refunded_amount: 1e300 }],
    ['a negative refunded_amount (check constraint)', { refunded_amount: -3 }],
    ['discount_total -1e20', { discount_total: -1e20 }],
    ['order_date in year 275760', { order_date: '+275760-09-13T00:00:00Z' }],
  ])(
    'given %s, when classified, then the row is dropped as unparseable_order_date_or_amount',
    (_label, over) => {
      const v = validateOrdersRequest({ orders: [row(over)] });
      expect(v.ok).toBe(true);
      const c = classifyOrders(v.ok ? v.rows : [], { now: new Date() });
      expect(c.counters).toMatchObject({ accepted: 0, dropped_invalid: 1 });
      expect(c.errors[0]?.codes).toEqual(['unparseable_order_date_or_amount']);
    },
  );

  it.each([
    ['order_amount -0', { order_amount: -0 }],
    ['order_amount just below 10^14', { order_amount: 99999999999999.98 }],
    ['discount_pct 1e308 (plain numeric)', { discount_pct: 1e308 }],
    [
      '__proto__ and constructor keys',
      JSON.parse('{"__proto__":{"x":1},"constructor":"y"}') as Record<string, unknown>,
    ],
  ])('given %s, when classified, then the row is accepted', (_label, over) => {
    const v = validateOrdersRequest({ orders: [row(over)] });
    const c = classifyOrders(v.ok ? v.rows : [], { now: new Date() });
    expect(c.counters.accepted).toBe(1);
  });

  it.each([
    ['a 60 KB product_name', { product_name: 'x'.repeat(60_000) }, 'product_name', 2048],
    ['a 60 KB order_id (index row too large)', { order_id: 'x'.repeat(60_000) }, 'order_id', 255],
    ['a 60 KB customer_id', { customer_id: 'x'.repeat(60_000) }, 'customer_id', 255],
    ['a 321-character email', { email: `${'x'.repeat(313)}@b.co.uk` }, 'email', 320],
  ])('given %s, when validated, then 422 string_too_long without echoing it', (_label, over, field, max) => {
    expect(validateOrdersRequest({ orders: [row(over)] })).toEqual({
      ok: false,
      detail: [
        {
          type: 'string_too_long',
          loc: ['body', 'orders', 0, field],
          msg: `String should have at most ${max} characters`,
          ctx: { max_length: max },
        },
      ],
    });
  });

  it('given 101 discount codes, when validated, then 422 too_long', () => {
    const v = validateOrdersRequest({ orders: [row({ discount_codes: Array(101).fill('X') })] });
    expect(v.ok === false && v.detail[0]).toMatchObject({
      type: 'too_long',
      loc: ['body', 'orders', 0, 'discount_codes'],
    });
  });
});

describe('the collector', () => {
  const event = (over: Record<string, unknown>) => ({
    key: 'pk_test',
    events: [
      {
        event_id: '6f1c2f7e-1111-4111-a111-111111111111',
        event_type: 'page_view',
        occurred_at: '2024-06-01T12:00:00Z',
        anonymous_id: 'a',
        ...over,
      },
    ],
  });

  it.each([[9007199254740991], [Number('9007199254740993')], [1e308]])(
    'given price_cents %d (beyond an Avro long in JavaScript), when validated, then 422 less_than_equal',
    (n) => {
      const v = validateCollectorRequest(event({ price_cents: n }));
      expect(v.ok === false && v.detail[0]).toMatchObject({
        type: 'less_than_equal',
        loc: ['body', 'events', 0, 'price_cents'],
      });
    },
  );

  it('given price_cents 2^53 - 2, when validated, then it passes', () => {
    expect(validateCollectorRequest(event({ price_cents: 9007199254740990 })).ok).toBe(true);
  });
});

describe('checkWebhookBody', () => {
  it.each([
    ['custom-api', { email: `${'x'.repeat(400)}@b.co` }, ['body', 'email'], 'string_too_long'],
    ['custom-api', { external_id: 'x'.repeat(256) }, ['body', 'external_id'], 'string_too_long'],
    ['custom-api', { customer_id: Number('9007199254740993') }, ['body', 'customer_id'], 'value_error'],
    [
      'custom-api',
      { email: 'a@b.co', address: { city: 'x'.repeat(3000) } },
      ['body', 'address', 'city'],
      'string_too_long',
    ],
    [
      'zero-party',
      { external_customer_id: 'x'.repeat(256) },
      ['body', 'external_customer_id'],
      'string_too_long',
    ],
    ['zero-party', { email: 'a@b.co', interests: Array(101).fill('tea') }, ['body', 'interests'], 'too_long'],
    [
      'zero-party',
      { email: 'a@b.co', interests: ['x'.repeat(256)] },
      ['body', 'interests', 0],
      'string_too_long',
    ],
  ] as const)('given a %s body %#, when checked, then 422 %s', (route, body, loc, type) => {
    expect(checkWebhookBody(route, body)[0]).toMatchObject({ loc, type });
  });

  it.each([
    ['custom-api', { email: 'a@b.co', external_id: 42, name: 7 }],
    ['zero-party', { email: 'a@b.co', interests: [1, 'tea'], quiz_version: 9007199254740990 }],
    ['zero-party', []],
  ] as const)('given a storable %s body %#, when checked, then nothing', (route, body) => {
    expect(checkWebhookBody(route, body)).toEqual([]);
  });
});

describe('echoable: what a 422 may send back', () => {
  it.each([
    [['body', 'orders', 0, 'currency'], 'USDX', true],
    [['body', 'orders', 0, 'currency'], 'ann@example.com', false],
    [['body', 'orders', 0, 'email'], 5, false],
    [['body', 'orders', 0, 'phone'], 4155550132, false],
    [['body', 'customers', 0, 'name'], 'Ann', false],
    [['body', 'orders', 0, 'currency'], 'x'.repeat(257), false],
    [['body', 'orders', 0, 'order_amount'], { a: 1 }, false],
  ])('given %j = %j, when asked, then %s', (loc, input, yes) => {
    expect(echoable(loc, input)).toBe(yes);
  });
});
