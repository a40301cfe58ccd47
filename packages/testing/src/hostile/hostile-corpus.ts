// Test and benchmark support (not shipped behaviour): the hostile-input corpus. Every input class that
// once broke the gateway (issue 14) or that the gateway must answer in a defined way, on every route,
// with the answer it must get. The integration corpus test sends each case once; the fuzz benchmark
// (bench/fuzz.ts) draws cases from it with a seeded generator and varies their values.
import { mulberry32 } from '../random.js';
import type { RawAnswer, RawRequest } from './raw-client.js';

/** A seeded generator (mulberry32): the same seed gives the same run. */
export class Rng {
  readonly next: () => number;
  constructor(seed: number) {
    this.next = mulberry32(seed);
  }
  int(n: number): number {
    return Math.floor(this.next() * n);
  }
  pick<T>(xs: readonly T[]): T {
    return xs[this.int(xs.length)]!;
  }
  id(prefix: string): string {
    return `${prefix}-${this.int(2 ** 31).toString(36)}${this.int(2 ** 31).toString(36)}`;
  }
  uuid(): string {
    const h = () =>
      this.int(2 ** 16)
        .toString(16)
        .padStart(4, '0');
    return `${h()}${h()}-${h()}-4${h().slice(1)}-a${h().slice(1)}-${h()}${h()}${h()}`;
  }
}

/** What a case is sent with: the fixtures of one account, and the generator. */
export interface CorpusContext {
  readonly ingestKey: string;
  readonly accountId: string;
  /** `?account_id=…&token=…` of the zero-party tile. */
  readonly zeroPartyQuery: string;
  readonly pixelKey: string;
  readonly origin: string;
  readonly rng: Rng;
  readonly now: Date;
}

/** Where an accepted case's record must end up once projected. */
export interface StoredMarker {
  readonly table: 'orders' | 'customers' | 'zero_party_submissions' | 'pixel_events';
  readonly column: string;
  readonly value: string;
}

/** The answer a case must get. */
export type Expectation =
  /** 200/204, and every record of it reaches the read models (`stored`). */
  | { readonly kind: 'stored'; readonly status: 200 | 204; readonly stored: readonly StoredMarker[] }
  /** POST /ingest/orders answers 200 with this many rows dropped (`dropped_invalid`), none accepted. */
  | { readonly kind: 'dropped'; readonly dropped: number }
  /** Refused with this status and the spec's body for it. */
  | { readonly kind: 'refused'; readonly status: number }
  /** Answered without a record (the loader script, the OpenAPI document, a duplicate). */
  | { readonly kind: 'answered'; readonly status: number };

/** One built request with its expected answer, and the personal values it carries (never echoed). */
export interface BuiltCase {
  readonly request: RawRequest;
  readonly expect: Expectation;
  readonly personal: readonly string[];
}

export type Route =
  | 'POST /ingest/orders'
  | 'POST /ingest/customers'
  | 'PATCH /ingest/account'
  | 'GET /ingest/health'
  | 'GET /ingest/batches'
  | 'POST /ingest/sync'
  | 'GET /ingest/sync/{task_id}'
  | 'POST /webhooks/custom-api'
  | 'POST /webhooks/zero-party'
  | 'POST /pixel/collect'
  | 'GET /pixel/v1/service-pixel.js'
  | 'GET /v1/openapi.json'
  | 'OTHER';

export interface HostileCase {
  readonly name: string;
  /** The input class (issue 14's list). */
  readonly klass: string;
  readonly route: Route;
  build(ctx: CorpusContext): BuiltCase;
}

const json = 'application/json';
const big = (n: number) => 'x'.repeat(n);
const deep = (levels: number) => `${'['.repeat(levels)}${']'.repeat(levels)}`;

function ingest(
  ctx: CorpusContext,
  method: string,
  path: string,
  body: string | Buffer | undefined,
  headers: Record<string, string | readonly string[]> = {},
): RawRequest {
  return {
    method,
    path,
    headers: { authorization: `Bearer ${ctx.ingestKey}`, 'content-type': json, ...headers },
    body,
  };
}

/** A valid order row; `over` replaces fields (undefined removes one). */
export function orderRow(ctx: CorpusContext, over: Record<string, unknown> = {}): Record<string, unknown> {
  return {
    order_id: ctx.rng.id('o'),
    customer_id: ctx.rng.id('c'),
    order_date: '2024-01-02T10:00:00Z',
    order_amount: 12.5,
    product_name: 'Tea',
    email: `${ctx.rng.id('u')}@example.com`,
    ...over,
  };
}

const ordersText = (rows: readonly unknown[]) => JSON.stringify({ orders: rows });

/** An orders case whose one row is stored. */
function orderStored(name: string, klass: string, over: (ctx: CorpusContext) => Record<string, unknown>) {
  return {
    name,
    klass,
    route: 'POST /ingest/orders' as const,
    build(ctx: CorpusContext): BuiltCase {
      const row = orderRow(ctx, over(ctx));
      return {
        request: ingest(ctx, 'POST', '/ingest/orders', ordersText([row])),
        expect: {
          kind: 'stored',
          status: 200,
          stored: [{ table: 'orders', column: 'order_id', value: String(row.order_id) }],
        },
        personal: [String(row.email)],
      };
    },
  };
}

/** An orders case whose one row must be dropped (unparseable_order_date_or_amount). */
function orderDropped(name: string, klass: string, rowText: (ctx: CorpusContext) => string) {
  return {
    name,
    klass,
    route: 'POST /ingest/orders' as const,
    build(ctx: CorpusContext): BuiltCase {
      return {
        request: ingest(ctx, 'POST', '/ingest/orders', `{"orders":[${rowText(ctx)}]}`),
        expect: { kind: 'dropped', dropped: 1 },
        personal: [],
      };
    },
  };
}

/** An orders row as JSON text with one field's raw JSON text replaced (numbers JSON cannot round-trip). */
function rowWithRaw(ctx: CorpusContext, field: string, rawValue: string): string {
  const row = orderRow(ctx, { [field]: '__RAW__' });
  return JSON.stringify(row).replace('"__RAW__"', rawValue);
}

/** A request refused with `status` (and the spec's body for it). */
function refused(
  name: string,
  klass: string,
  route: Route,
  status: number,
  build: (ctx: CorpusContext) => RawRequest,
): HostileCase {
  return {
    name,
    klass,
    route,
    build: (ctx) => ({ request: build(ctx), expect: { kind: 'refused', status }, personal: [] }),
  };
}

const customApi = (ctx: CorpusContext, body: string | Buffer, headers: Record<string, string> = {}) =>
  ingest(ctx, 'POST', '/webhooks/custom-api', body, headers);
const zeroParty = (ctx: CorpusContext, body: string | Buffer, query = ctx.zeroPartyQuery): RawRequest => ({
  method: 'POST',
  path: `/webhooks/zero-party${query}`,
  headers: { 'content-type': json },
  body,
});
const pixelEvent = (ctx: CorpusContext, over: Record<string, unknown> = {}) => ({
  event_id: ctx.rng.uuid(),
  event_type: 'page_view',
  occurred_at: ctx.now.toISOString(),
  anonymous_id: ctx.rng.id('anon'),
  url_path: '/products/tea',
  consent_state: 'granted',
  ...over,
});
const collect = (ctx: CorpusContext, body: string | Buffer): RawRequest => ({
  method: 'POST',
  path: '/pixel/collect',
  headers: { 'content-type': json, origin: ctx.origin },
  body,
});
const collectText = (ctx: CorpusContext, events: readonly unknown[]) =>
  JSON.stringify({ key: ctx.pixelKey, events });

/** Invalid UTF-8: a lone continuation byte and an overlong encoding inside a JSON string. */
const INVALID_UTF8 = Buffer.from([0x80, 0xc0, 0xaf]);
const withBytes = (before: string, bytes: Buffer, after: string) =>
  Buffer.concat([Buffer.from(before), bytes, Buffer.from(after)]);

/** Issue 14's input classes: every route is tried with each (see `matrixCases`). */
export const INPUT_CLASSES = [
  'malformed_json',
  'duplicate_keys',
  'deep_nesting',
  'big_numbers',
  'nul',
  'surrogates',
  'invalid_utf8',
  'proto_keys',
  'extreme_dates',
  'huge_strings',
  'huge_arrays',
  'content_type',
  'missing_body',
  'duplicate_headers',
  'key_in_query',
  'unknown_method',
  'percent_junk',
] as const;
export type InputClass = (typeof INPUT_CLASSES)[number];

/** The expected answer of a matrix case: a refusal with its status, or an answer without a record. */
type MatrixAnswer = { refused: number } | { answered: number };

/** A route as the matrix drives it: how to send a body, a valid body, and the answers per class. */
interface MatrixRoute {
  readonly label: string;
  readonly route: Route;
  readonly method: string;
  readonly path: string;
  /** The request with `body` (text or bytes), `query` appended and `headers` added. */
  send(c: CorpusContext, body: string | Buffer | undefined, query?: string, headers?: Headers): RawRequest;
  /** A valid body as text, with `extra` raw JSON members (`"k":v`) added to its innermost object. */
  body(c: CorpusContext, extra?: string): string;
  readonly answers: Readonly<Record<InputClass, MatrixAnswer>>;
}

type Headers = Record<string, string | readonly string[]>;

const withQuery = (path: string, query = '') =>
  query ? `${path}${path.includes('?') ? '&' : '?'}${query}` : path;
const member = (extra?: string) => (extra ? `,${extra}` : '');

/** The hostile body or request of each class for a body route. */
function matrixRequest(r: MatrixRoute, k: InputClass, c: CorpusContext): RawRequest {
  switch (k) {
    case 'malformed_json':
      return r.send(c, r.body(c).slice(0, -3));
    case 'duplicate_keys': {
      // The last of two equal keys wins (JSON.parse): the body's first key again, as an object.
      const text = r.body(c);
      const first = /^\{"([a-z_]+)":/.exec(text)?.[1] ?? 'x';
      return r.send(c, text.replace(/\}$/, `,"${first}":{}}`));
    }
    case 'deep_nesting':
      return r.send(c, r.body(c, `"x_deep":${deep(33)}`));
    case 'big_numbers':
      return r.send(c, r.body(c, '"x_big":1e400,"x_safe":9007199254740993,"x_neg":-0'));
    case 'nul':
      return r.send(c, r.body(c, '"x_nul":"a\\u0000b"'));
    case 'surrogates':
      return r.send(c, r.body(c, '"x_sur":"a\\udc00b"'));
    case 'invalid_utf8':
      return r.send(
        c,
        withBytes(r.body(c).slice(0, -2) + ',"x_utf":"', INVALID_UTF8, `"${r.body(c).slice(-2)}`),
      );
    case 'proto_keys':
      return r.send(c, r.body(c, '"__proto__":{"admin":true},"constructor":{"prototype":{"x":1}}'));
    case 'extreme_dates':
      return r.send(c, r.body(c, '"x_date":"+275760-09-13T00:00:00+99:99"'));
    case 'huge_strings':
      return r.send(c, r.body(c, `"x_huge":"${big(70_000)}"`));
    case 'huge_arrays':
      return r.send(c, r.body(c, `"x_list":[${Array.from({ length: 10_000 }, () => '0').join(',')}]`));
    case 'content_type':
      return r.send(c, 'a=1&b=2', undefined, { 'content-type': 'application/x-www-form-urlencoded' });
    case 'missing_body':
      return r.send(c, undefined);
    case 'duplicate_headers':
      return r.send(c, r.body(c), undefined, { 'content-length': ['2', '3'] });
    case 'key_in_query':
      return r.send(c, r.body(c), `api_key=${encodeURIComponent(c.ingestKey)}`);
    case 'unknown_method':
      return { ...r.send(c, r.body(c)), method: 'PROPFIND' };
    case 'percent_junk':
      return r.send(c, r.body(c), '%ZZ=%00&%E0%A4%A=1&dry_run=%ZZ');
  }
}

/** The hostile request of each class for a route without a body (GET): in the query and headers. */
function matrixGet(r: MatrixRoute, k: InputClass, c: CorpusContext): RawRequest {
  const q = (query: string, headers?: Headers) => r.send(c, undefined, query, headers);
  switch (k) {
    case 'malformed_json':
      return r.send(c, '{"a":');
    case 'duplicate_keys':
      return q('limit=1&limit=2');
    case 'deep_nesting':
      return q(`a${'[b]'.repeat(40)}=1`);
    case 'big_numbers':
      return q('limit=9007199254740993');
    case 'nul':
      return q('limit=%00');
    case 'surrogates':
      return q('limit=%ED%A0%80');
    case 'invalid_utf8':
      return q('limit=%C0%AF');
    case 'proto_keys':
      return q('__proto__[admin]=1&constructor[prototype][x]=1');
    case 'extreme_dates':
      return q('', { 'if-modified-since': '+275760-09-13T00:00:00Z' });
    case 'huge_strings':
      return q(`x=${big(70_000)}`);
    case 'huge_arrays':
      return q(Array.from({ length: 1000 }, () => 'limit=1').join('&'));
    case 'content_type':
      return r.send(c, '<x/>', undefined, { 'content-type': 'text/html' });
    case 'missing_body':
      return r.send(c, '', undefined, { 'content-type': json });
    case 'duplicate_headers':
      return r.send(c, undefined, undefined, { 'content-length': ['2', '3'] });
    case 'key_in_query':
      return q(`api_key=${encodeURIComponent(c.ingestKey)}`);
    case 'unknown_method':
      return { ...q(''), method: 'PROPFIND' };
    case 'percent_junk':
      return q('%ZZ=%00&%E0%A4%A=1');
  }
}

/** Answers shared by most routes; a route overrides what differs. */
function answers(
  normal: MatrixAnswer,
  over: Partial<Record<InputClass, MatrixAnswer>>,
): Record<InputClass, MatrixAnswer> {
  return {
    malformed_json: { refused: 422 },
    duplicate_keys: { refused: 422 },
    deep_nesting: { refused: 422 },
    big_numbers: { refused: 422 },
    nul: { refused: 422 },
    surrogates: { refused: 422 },
    invalid_utf8: { refused: 422 },
    proto_keys: normal,
    extreme_dates: normal,
    huge_strings: { refused: 413 },
    huge_arrays: normal,
    content_type: { refused: 422 },
    missing_body: { refused: 422 },
    duplicate_headers: { refused: 400 },
    key_in_query: { refused: 401 },
    unknown_method: { refused: 404 },
    percent_junk: normal,
    ...over,
  };
}

const bearer = (c: CorpusContext) => `Bearer ${c.ingestKey}`;
const MATRIX_ROUTES: readonly MatrixRoute[] = [
  {
    label: 'customers',
    route: 'POST /ingest/customers',
    method: 'POST',
    path: '/ingest/customers',
    send: (c, body, query, headers) =>
      ingest(c, 'POST', withQuery('/ingest/customers', query), body, headers),
    body: (c, extra) => `{"customers":[{"external_id":"${c.rng.id('m')}"${member(extra)}}]}`,
    // Unknown fields of a row are ignored (spec), whatever they hold: not stored, so not refused.
    answers: answers(
      { answered: 200 },
      { big_numbers: { answered: 200 }, huge_strings: { answered: 200 }, percent_junk: { refused: 422 } },
    ),
  },
  {
    label: 'account',
    route: 'PATCH /ingest/account',
    method: 'PATCH',
    path: '/ingest/account',
    send: (c, body, query, headers) => ingest(c, 'PATCH', withQuery('/ingest/account', query), body, headers),
    body: (_c, extra) => `{"store_timezone":"Europe/Oslo"${member(extra)}}`,
    answers: answers({ answered: 200 }, { big_numbers: { answered: 200 } }),
  },
  {
    label: 'sync',
    route: 'POST /ingest/sync',
    method: 'POST',
    path: '/ingest/sync',
    send: (c, body, query, headers) => ingest(c, 'POST', withQuery('/ingest/sync', query), body, headers),
    body: (_c, extra) => `{"x":1${member(extra)}}`,
    // No body in the spec: whatever is sent is not read (a 429 after the first call is load shedding).
    answers: answers(
      { answered: 200 },
      {
        malformed_json: { answered: 200 },
        duplicate_keys: { answered: 200 },
        deep_nesting: { answered: 200 },
        big_numbers: { answered: 200 },
        nul: { answered: 200 },
        surrogates: { answered: 200 },
        invalid_utf8: { answered: 200 },
        huge_strings: { answered: 200 },
        content_type: { answered: 200 },
        missing_body: { answered: 200 },
      },
    ),
  },
  {
    label: 'custom-api',
    route: 'POST /webhooks/custom-api',
    method: 'POST',
    path: '/webhooks/custom-api',
    send: (c, body, query, headers) =>
      ingest(c, 'POST', withQuery('/webhooks/custom-api', query), body, headers),
    body: (c, extra) => `{"external_id":"${c.rng.id('m')}"${member(extra)}}`,
    // An external_id that is not a string is no identity: 400 (spec), like a body without one.
    answers: answers(
      { answered: 200 },
      { missing_body: { refused: 400 }, duplicate_keys: { refused: 400 }, big_numbers: { answered: 200 } },
    ),
  },
  {
    label: 'zero-party',
    route: 'POST /webhooks/zero-party',
    method: 'POST',
    path: '/webhooks/zero-party',
    send: (c, body, query, headers) => ({
      method: 'POST',
      path: withQuery(`/webhooks/zero-party${c.zeroPartyQuery}`, query),
      headers: { 'content-type': json, ...headers },
      body,
    }),
    body: (c, extra) => `{"external_id":"${c.rng.id('m')}"${member(extra)}}`,
    answers: answers(
      { answered: 200 },
      { missing_body: { refused: 400 }, duplicate_keys: { refused: 400 }, big_numbers: { answered: 200 } },
    ),
  },
  {
    label: 'pixel',
    route: 'POST /pixel/collect',
    method: 'POST',
    path: '/pixel/collect',
    send: (c, body, query, headers) => ({
      method: 'POST',
      path: withQuery('/pixel/collect', query),
      headers: { 'content-type': json, origin: c.origin, ...headers },
      body,
    }),
    // The hostile members go into the event (unknown fields are refused there: 422 whatever they hold).
    body: (c, extra) => collectText(c, [pixelEvent(c)]).replace(/\}\]\}$/, `${member(extra)}}]}`),
    answers: answers(
      { answered: 204 },
      { proto_keys: { refused: 422 }, extreme_dates: { refused: 422 }, huge_arrays: { refused: 422 } },
    ),
  },
];

const GET_ROUTES: readonly MatrixRoute[] = [
  ['health', 'GET /ingest/health', '/ingest/health', true, 200],
  ['batches', 'GET /ingest/batches', '/ingest/batches', true, 200],
  [
    'sync status',
    'GET /ingest/sync/{task_id}',
    '/ingest/sync/00000000-0000-4000-8000-000000000000',
    true,
    404,
  ],
  ['pixel script', 'GET /pixel/v1/service-pixel.js', '/pixel/v1/service-pixel.js', false, 200],
  ['openapi', 'GET /v1/openapi.json', '/v1/openapi.json', false, 200],
  ['unknown path', 'OTHER', '/ingest/nothing-here', true, 404],
].map(([label, route, path, auth, status]) => {
  const normal: MatrixAnswer =
    (status as number) < 300 ? { answered: status as number } : { refused: status as number };
  return {
    label: label as string,
    route: route as Route,
    method: 'GET',
    path: path as string,
    send: (c: CorpusContext, body: string | Buffer | undefined, query?: string, headers?: Headers) => ({
      method: 'GET',
      path: withQuery(path as string, query),
      headers: { ...(auth ? { authorization: bearer(c) } : {}), ...headers },
      body,
    }),
    body: () => '',
    answers: answers(normal, {
      malformed_json: normal,
      duplicate_keys: normal,
      deep_nesting: normal,
      big_numbers: normal,
      nul: normal,
      surrogates: normal,
      invalid_utf8: normal,
      huge_strings: { refused: 431 },
      content_type: normal,
      missing_body: normal,
      ...(label === 'batches'
        ? {
            big_numbers: { refused: 422 },
            nul: { refused: 422 },
            surrogates: { refused: 422 },
            invalid_utf8: { refused: 422 },
          }
        : {}),
    }),
  };
});

/** Every class on every route, with the answer it must get (names end in "(matrix)"). */
function matrixCases(): HostileCase[] {
  const out: HostileCase[] = [];
  for (const r of [...MATRIX_ROUTES, ...GET_ROUTES]) {
    for (const k of INPUT_CLASSES) {
      const a = r.answers[k];
      const build = (c: CorpusContext): RawRequest =>
        r.method === 'GET' ? matrixGet(r, k, c) : matrixRequest(r, k, c);
      out.push({
        name: `${r.label}: ${k} (matrix)`,
        klass: k,
        route: r.route,
        build: (c) => ({
          request: build(c),
          expect:
            'refused' in a
              ? { kind: 'refused', status: a.refused }
              : { kind: 'answered', status: a.answered },
          personal: [],
        }),
      });
    }
  }
  return out;
}

/**
 * The corpus. Names are stable (the integration test and the fuzz benchmark report by them).
 * Classes: malformed JSON, duplicate keys, deep nesting, numbers (2^53, 1e308, -0, 1e400), NUL and
 * unpaired surrogates, invalid UTF-8, __proto__/constructor, extreme dates and offsets, huge strings
 * and arrays, content types, missing and empty bodies, duplicate headers, keys in the query string,
 * unknown methods, percent-encoded junk.
 */
export const HOSTILE_CORPUS: readonly HostileCase[] = [
  // ---- POST /ingest/orders
  refused('orders: malformed JSON', 'malformed_json', 'POST /ingest/orders', 422, (c) =>
    ingest(c, 'POST', '/ingest/orders', '{"orders": [{"order_id": '),
  ),
  {
    name: 'orders: duplicate keys, the last wins',
    klass: 'duplicate_keys',
    route: 'POST /ingest/orders',
    build(c) {
      const row = orderRow(c);
      const text = `{"orders":"not a list","orders":${JSON.stringify([row])}}`;
      return {
        request: ingest(c, 'POST', '/ingest/orders', text),
        expect: {
          kind: 'stored',
          status: 200,
          stored: [{ table: 'orders', column: 'order_id', value: String(row.order_id) }],
        },
        personal: [String(row.email)],
      };
    },
  },
  refused('orders: 10,000 levels deep in an unknown field', 'deep_nesting', 'POST /ingest/orders', 422, (c) =>
    ingest(
      c,
      'POST',
      '/ingest/orders',
      ordersText([orderRow(c, { extra: '__D__' })]).replace('"__D__"', deep(10_000)),
    ),
  ),
  refused('orders: 33 levels deep', 'deep_nesting', 'POST /ingest/orders', 422, (c) =>
    ingest(
      c,
      'POST',
      '/ingest/orders',
      ordersText([orderRow(c, { extra: '__D__' })]).replace('"__D__"', deep(31)),
    ),
  ),
  orderStored('orders: 32 levels deep is fine', 'deep_nesting', () => ({
    extra: JSON.parse(deep(29)) as unknown,
  })),
  orderDropped('orders: order_amount 2^53 + 1', 'big_numbers', (c) =>
    rowWithRaw(c, 'order_amount', '9007199254740993'),
  ),
  orderDropped('orders: order_amount 1e300', 'big_numbers', (c) => rowWithRaw(c, 'order_amount', '1e300')),
  orderDropped('orders: order_amount 1e308', 'big_numbers', (c) => rowWithRaw(c, 'order_amount', '1e308')),
  // 1e400 overflows a double: JSON.parse makes it Infinity, which is not a JSON number any more.
  refused('orders: order_amount 1e400 (Infinity)', 'big_numbers', 'POST /ingest/orders', 422, (c) =>
    ingest(c, 'POST', '/ingest/orders', `{"orders":[${rowWithRaw(c, 'order_amount', '1e400')}]}`),
  ),
  refused(
    'pixel: price_cents 2^53 - 1 (beyond an Avro long in JavaScript)',
    'big_numbers',
    'POST /pixel/collect',
    422,
    (c) => collect(c, collectText(c, [pixelEvent(c, { price_cents: 9007199254740991 })])),
  ),
  orderDropped('orders: order_amount 10^14', 'big_numbers', (c) =>
    rowWithRaw(c, 'order_amount', '100000000000000'),
  ),
  orderDropped('orders: refunded_amount 1e300', 'big_numbers', (c) =>
    rowWithRaw(c, 'refunded_amount', '1e300'),
  ),
  orderDropped('orders: negative refunded_amount', 'big_numbers', (c) =>
    rowWithRaw(c, 'refunded_amount', '-3'),
  ),
  orderDropped('orders: discount_total -1e20', 'big_numbers', (c) =>
    rowWithRaw(c, 'discount_total', '-1e20'),
  ),
  orderStored('orders: order_amount -0', 'big_numbers', () => ({ order_amount: -0 })),
  orderStored('orders: order_amount 99999999999999.9999', 'big_numbers', () => ({
    order_amount: 99999999999999.98,
  })),
  orderStored('orders: discount_pct 1e308 and 5e-324', 'big_numbers', () => ({
    discount_pct: 1e308,
    discount_total: 5e-324,
  })),
  {
    name: 'orders: refunded_amount 1e-400 (zero)',
    klass: 'big_numbers',
    route: 'POST /ingest/orders',
    build(c) {
      const text = rowWithRaw(c, 'refunded_amount', '1e-400');
      const id = String((JSON.parse(text) as { order_id: string }).order_id);
      return {
        request: ingest(c, 'POST', '/ingest/orders', `{"orders":[${text}]}`),
        expect: { kind: 'stored', status: 200, stored: [{ table: 'orders', column: 'order_id', value: id }] },
        personal: [],
      };
    },
  },
  refused('orders: NUL in product_name', 'nul', 'POST /ingest/orders', 422, (c) =>
    ingest(c, 'POST', '/ingest/orders', ordersText([orderRow(c, { product_name: 'Tea\u0000Bag' })])),
  ),
  refused('orders: NUL in an unknown field name', 'nul', 'POST /ingest/orders', 422, (c) =>
    ingest(c, 'POST', '/ingest/orders', ordersText([orderRow(c, { 'x\u0000y': 1 })])),
  ),
  refused('orders: unpaired high surrogate', 'surrogates', 'POST /ingest/orders', 422, (c) =>
    ingest(c, 'POST', '/ingest/orders', ordersText([orderRow(c, { customer_name: 'Ann \ud800' })])),
  ),
  refused('orders: unpaired low surrogate in order_id', 'surrogates', 'POST /ingest/orders', 422, (c) =>
    ingest(c, 'POST', '/ingest/orders', ordersText([orderRow(c, { order_id: '\udc00x' })])),
  ),
  orderStored('orders: a paired surrogate (emoji) is fine', 'surrogates', () => ({
    product_name: 'Tea \ud83c\udf75',
  })),
  refused('orders: invalid UTF-8 bytes', 'invalid_utf8', 'POST /ingest/orders', 422, (c) =>
    ingest(c, 'POST', '/ingest/orders', withBytes('{"orders":[{"order_id":"a', INVALID_UTF8, '"}]}')),
  ),
  // JSON.parse makes `__proto__` an own key (an object literal would set the prototype instead).
  orderStored(
    'orders: __proto__ and constructor keys',
    'proto_keys',
    () =>
      JSON.parse('{"__proto__":{"polluted":true},"constructor":"x","prototype":{"a":1}}') as Record<
        string,
        unknown
      >,
  ),
  orderDropped('orders: year 275760', 'extreme_dates', (c) =>
    JSON.stringify(orderRow(c, { order_date: '+275760-09-13T00:00:00Z' })),
  ),
  orderDropped('orders: year 0000', 'extreme_dates', (c) =>
    JSON.stringify(orderRow(c, { order_date: '0000-01-01T00:00:00Z' })),
  ),
  orderDropped('orders: 9999-12-31 pushed past the year by its offset', 'extreme_dates', (c) =>
    JSON.stringify(orderRow(c, { order_date: '9999-12-31T23:30:00-05:00' })),
  ),
  orderStored('orders: 0001-01-01 and offset +23:59', 'extreme_dates', () => ({
    order_date: '0001-01-02T10:00:00+23:59',
    cancelled_at: '9999-12-31T23:59:59.999Z',
  })),
  orderStored('orders: cancelled_at out of range is ignored', 'extreme_dates', () => ({
    cancelled_at: '0000-01-01T00:00:00Z',
  })),
  refused('orders: 60 KB product_name', 'huge_strings', 'POST /ingest/orders', 422, (c) =>
    ingest(c, 'POST', '/ingest/orders', ordersText([orderRow(c, { product_name: big(60_000) })])),
  ),
  refused('orders: 60 KB order_id', 'huge_strings', 'POST /ingest/orders', 422, (c) =>
    ingest(c, 'POST', '/ingest/orders', ordersText([orderRow(c, { order_id: big(60_000) })])),
  ),
  refused('orders: 60 KB customer_id', 'huge_strings', 'POST /ingest/orders', 422, (c) =>
    ingest(c, 'POST', '/ingest/orders', ordersText([orderRow(c, { customer_id: big(60_000) })])),
  ),
  refused('orders: 60 KB email', 'huge_strings', 'POST /ingest/orders', 422, (c) =>
    ingest(c, 'POST', '/ingest/orders', ordersText([orderRow(c, { email: `${big(60_000)}@example.com` })])),
  ),
  refused('orders: 60 KB currency', 'huge_strings', 'POST /ingest/orders', 422, (c) =>
    ingest(c, 'POST', '/ingest/orders', ordersText([orderRow(c, { currency: big(60_000) })])),
  ),
  refused('orders: 10,000 discount codes', 'huge_arrays', 'POST /ingest/orders', 422, (c) =>
    ingest(
      c,
      'POST',
      '/ingest/orders',
      ordersText([orderRow(c, { discount_codes: Array(10_000).fill('X') })]),
    ),
  ),
  orderDropped('orders: 60 KB order_date', 'huge_strings', (c) =>
    JSON.stringify(orderRow(c, { order_date: big(60_000) })),
  ),
  refused('orders: 5,001 rows', 'huge_arrays', 'POST /ingest/orders', 413, (c) =>
    ingest(c, 'POST', '/ingest/orders', JSON.stringify({ orders: Array(5001).fill({}) })),
  ),
  refused('orders: 32 MiB + 1 declared', 'huge_strings', 'POST /ingest/orders', 413, (c) =>
    ingest(c, 'POST', '/ingest/orders', '{}', { 'content-length': String(32 * 1024 * 1024 + 1) }),
  ),
  {
    name: 'orders: text/plain content type is read as JSON',
    klass: 'content_type',
    route: 'POST /ingest/orders',
    build(c) {
      const row = orderRow(c);
      return {
        request: ingest(c, 'POST', '/ingest/orders', ordersText([row]), { 'content-type': 'text/plain' }),
        expect: {
          kind: 'stored',
          status: 200,
          stored: [{ table: 'orders', column: 'order_id', value: String(row.order_id) }],
        },
        personal: [String(row.email)],
      };
    },
  },
  refused('orders: multipart body', 'content_type', 'POST /ingest/orders', 422, (c) =>
    ingest(
      c,
      'POST',
      '/ingest/orders',
      '--b\r\nContent-Disposition: form-data; name="orders"\r\n\r\n[]\r\n--b--',
      {
        'content-type': 'multipart/form-data; boundary=b',
      },
    ),
  ),
  refused('orders: gzip bytes without decoding', 'content_type', 'POST /ingest/orders', 422, (c) =>
    ingest(c, 'POST', '/ingest/orders', Buffer.from([0x1f, 0x8b, 0x08, 0x00, 0xff, 0xfe]), {
      'content-encoding': 'gzip',
    }),
  ),
  refused('orders: no body', 'missing_body', 'POST /ingest/orders', 422, (c) =>
    ingest(c, 'POST', '/ingest/orders', undefined),
  ),
  refused('orders: empty body', 'missing_body', 'POST /ingest/orders', 422, (c) =>
    ingest(c, 'POST', '/ingest/orders', ''),
  ),
  refused('orders: body null', 'missing_body', 'POST /ingest/orders', 422, (c) =>
    ingest(c, 'POST', '/ingest/orders', 'null'),
  ),
  refused('orders: empty batch', 'missing_body', 'POST /ingest/orders', 400, (c) =>
    ingest(c, 'POST', '/ingest/orders', '{"orders":[]}'),
  ),
  refused('orders: a BOM before the JSON', 'malformed_json', 'POST /ingest/orders', 422, (c) =>
    ingest(c, 'POST', '/ingest/orders', `\ufeff${ordersText([orderRow(c)])}`),
  ),
  refused(
    'orders: key in ?authorization= beside the header',
    'key_in_query',
    'POST /ingest/orders',
    401,
    (c) =>
      ingest(
        c,
        'POST',
        `/ingest/orders?authorization=${encodeURIComponent(`Bearer ${c.ingestKey}`)}`,
        ordersText([orderRow(c)]),
      ),
  ),
  refused('orders: key in an arbitrary parameter', 'key_in_query', 'POST /ingest/orders', 401, (c) =>
    ingest(c, 'POST', `/ingest/orders?x=${c.ingestKey}`, ordersText([orderRow(c)])),
  ),
  refused(
    'orders: key as a parameter name, percent-encoded',
    'key_in_query',
    'POST /ingest/orders',
    401,
    (c) => ingest(c, 'POST', `/ingest/orders?%74k_live_${c.ingestKey.slice(8)}`, ordersText([orderRow(c)])),
  ),
  refused('orders: two X-Service-Account-Id headers', 'duplicate_headers', 'POST /ingest/orders', 401, (c) =>
    ingest(c, 'POST', '/ingest/orders', ordersText([orderRow(c)]), {
      'x-service-account-id': [c.accountId, c.accountId],
    }),
  ),
  refused(
    'orders: two different Content-Length headers',
    'duplicate_headers',
    'POST /ingest/orders',
    400,
    (c) => ingest(c, 'POST', '/ingest/orders', '{}', { 'content-length': ['2', '3'] }),
  ),
  refused('orders: dry_run=%ZZ', 'percent_junk', 'POST /ingest/orders', 422, (c) =>
    ingest(c, 'POST', '/ingest/orders?dry_run=%ZZ', ordersText([orderRow(c)])),
  ),
  refused('orders: unknown method', 'unknown_method', 'POST /ingest/orders', 400, (c) =>
    ingest(c, 'FOO', '/ingest/orders', undefined),
  ),
  refused('orders: PURGE', 'unknown_method', 'POST /ingest/orders', 404, (c) =>
    ingest(c, 'PURGE', '/ingest/orders', undefined),
  ),
  // ---- POST /ingest/customers
  {
    name: 'customers: __proto__ in address and NUL-free unicode',
    klass: 'proto_keys',
    route: 'POST /ingest/customers',
    build(c) {
      const id = c.rng.id('c');
      const body = JSON.stringify({
        customers: [
          {
            external_id: id,
            name: 'Zoë \ud83d\ude00',
            address: JSON.parse('{"city":"Oslo","__proto__":{"street":"x"}}') as unknown,
            constructor: 1,
          },
        ],
      });
      return {
        request: ingest(c, 'POST', '/ingest/customers', body),
        expect: {
          kind: 'stored',
          status: 200,
          stored: [{ table: 'customers', column: 'external_id', value: id }],
        },
        personal: [],
      };
    },
  },
  {
    name: 'customers: subscription_started_at year 0000 is ignored',
    klass: 'extreme_dates',
    route: 'POST /ingest/customers',
    build(c) {
      const id = c.rng.id('c');
      const body = JSON.stringify({
        customers: [{ external_id: id, subscription_started_at: '0000-01-01T00:00:00Z' }],
      });
      return {
        request: ingest(c, 'POST', '/ingest/customers', body),
        expect: {
          kind: 'stored',
          status: 200,
          stored: [{ table: 'customers', column: 'external_id', value: id }],
        },
        personal: [],
      };
    },
  },
  refused('customers: NUL in name', 'nul', 'POST /ingest/customers', 422, (c) =>
    ingest(
      c,
      'POST',
      '/ingest/customers',
      JSON.stringify({ customers: [{ external_id: 'a', name: 'A\u0000' }] }),
    ),
  ),
  refused('customers: 60 KB external_id', 'huge_strings', 'POST /ingest/customers', 422, (c) =>
    ingest(c, 'POST', '/ingest/customers', JSON.stringify({ customers: [{ external_id: big(60_000) }] })),
  ),
  refused('customers: 60 KB address city', 'huge_strings', 'POST /ingest/customers', 422, (c) =>
    ingest(
      c,
      'POST',
      '/ingest/customers',
      JSON.stringify({ customers: [{ external_id: 'a', address: { city: big(60_000) } }] }),
    ),
  ),
  refused('customers: deep nesting', 'deep_nesting', 'POST /ingest/customers', 422, (c) =>
    ingest(c, 'POST', '/ingest/customers', `{"customers":[{"external_id":"a","x":${deep(10_000)}}]}`),
  ),
  refused('customers: invalid UTF-8', 'invalid_utf8', 'POST /ingest/customers', 422, (c) =>
    ingest(c, 'POST', '/ingest/customers', withBytes('{"customers":[{"external_id":"', INVALID_UTF8, '"}]}')),
  ),
  // ---- PATCH /ingest/account, GET /ingest/health, GET /ingest/batches
  refused('account: NUL in store_timezone', 'nul', 'PATCH /ingest/account', 422, (c) =>
    ingest(c, 'PATCH', '/ingest/account', '{"store_timezone":"Europe/Oslo\\u0000"}'),
  ),
  refused('account: deep nesting', 'deep_nesting', 'PATCH /ingest/account', 422, (c) =>
    ingest(c, 'PATCH', '/ingest/account', `{"store_timezone":${deep(5000)}}`),
  ),
  refused('account: 64 KiB + 1', 'huge_strings', 'PATCH /ingest/account', 413, (c) =>
    ingest(c, 'PATCH', '/ingest/account', JSON.stringify({ store_timezone: big(65_536) })),
  ),
  refused('health: key in ?token=', 'key_in_query', 'GET /ingest/health', 401, (c) =>
    ingest(c, 'GET', `/ingest/health?token=${c.ingestKey}`, undefined),
  ),
  refused('health: no key', 'key_in_query', 'GET /ingest/health', 401, () => ({
    method: 'GET',
    path: '/ingest/health',
  })),
  refused('batches: limit=%00', 'percent_junk', 'GET /ingest/batches', 422, (c) =>
    ingest(c, 'GET', '/ingest/batches?limit=%00', undefined),
  ),
  refused('batches: limit=1e400', 'big_numbers', 'GET /ingest/batches', 422, (c) =>
    ingest(c, 'GET', '/ingest/batches?limit=1e400', undefined),
  ),
  refused('sync status: task id %ZZ', 'percent_junk', 'GET /ingest/sync/{task_id}', 400, (c) =>
    ingest(c, 'GET', '/ingest/sync/%ZZ', undefined),
  ),
  refused('sync status: task id NUL', 'percent_junk', 'GET /ingest/sync/{task_id}', 404, (c) =>
    ingest(c, 'GET', '/ingest/sync/%00', undefined),
  ),
  // ---- POST /webhooks/custom-api
  refused('custom-api: 10,000 levels deep', 'deep_nesting', 'POST /webhooks/custom-api', 422, (c) =>
    customApi(c, `{"email":"a@example.com","x":${deep(10_000)}}`),
  ),
  refused('custom-api: NUL in name', 'nul', 'POST /webhooks/custom-api', 422, (c) =>
    customApi(c, JSON.stringify({ external_id: 'a', name: 'A\u0000' })),
  ),
  refused('custom-api: 60 KB email', 'huge_strings', 'POST /webhooks/custom-api', 422, (c) =>
    customApi(c, JSON.stringify({ email: `${big(60_000)}@example.com` })),
  ),
  refused('custom-api: 60 KB external_id', 'huge_strings', 'POST /webhooks/custom-api', 422, (c) =>
    customApi(c, JSON.stringify({ external_id: big(60_000) })),
  ),
  refused('custom-api: numeric id 2^53 + 1', 'big_numbers', 'POST /webhooks/custom-api', 422, (c) =>
    customApi(c, '{"customer_id":9007199254740993}'),
  ),
  refused('custom-api: unpaired surrogate', 'surrogates', 'POST /webhooks/custom-api', 422, (c) =>
    customApi(c, '{"external_id":"a\\udfff"}'),
  ),
  refused('custom-api: invalid UTF-8', 'invalid_utf8', 'POST /webhooks/custom-api', 422, (c) =>
    customApi(c, withBytes('{"external_id":"', INVALID_UTF8, '"}')),
  ),
  refused('custom-api: malformed JSON', 'malformed_json', 'POST /webhooks/custom-api', 422, (c) =>
    customApi(c, '{"email":'),
  ),
  refused('custom-api: array body', 'missing_body', 'POST /webhooks/custom-api', 400, (c) =>
    customApi(c, '[{"email":"a@b.co"}]'),
  ),
  refused('custom-api: empty body', 'missing_body', 'POST /webhooks/custom-api', 400, (c) =>
    customApi(c, ''),
  ),
  refused('custom-api: key in ?authorization=', 'key_in_query', 'POST /webhooks/custom-api', 401, (c) => ({
    ...customApi(c, '{"email":"a@b.co"}'),
    path: `/webhooks/custom-api?authorization=Bearer%20${c.ingestKey}`,
  })),
  {
    name: 'custom-api: __proto__ and constructor keys',
    klass: 'proto_keys',
    route: 'POST /webhooks/custom-api',
    build(c) {
      const id = c.rng.id('e');
      const body = `{"external_id":"${id}","event_type":"signup","__proto__":{"email":"x@example.com"},"constructor":{"name":1},"consent":{"__proto__":{"sms":true},"sms":false}}`;
      return { request: customApi(c, body), expect: { kind: 'answered', status: 200 }, personal: [] };
    },
  },
  // ---- POST /webhooks/zero-party
  refused(
    'zero-party: attributes 10,000 levels deep',
    'deep_nesting',
    'POST /webhooks/zero-party',
    422,
    (c) => zeroParty(c, `{"email":"a@example.com","attributes":{"a":${deep(10_000)}}}`),
  ),
  refused('zero-party: NUL in an attribute', 'nul', 'POST /webhooks/zero-party', 422, (c) =>
    zeroParty(c, JSON.stringify({ email: 'a@example.com', attributes: { a: 'x\u0000' } })),
  ),
  refused('zero-party: NUL in an attribute key', 'nul', 'POST /webhooks/zero-party', 422, (c) =>
    zeroParty(c, JSON.stringify({ email: 'a@example.com', attributes: { 'a\u0000': 1 } })),
  ),
  refused(
    'zero-party: unpaired surrogate in an attribute',
    'surrogates',
    'POST /webhooks/zero-party',
    422,
    (c) => zeroParty(c, '{"email":"a@example.com","attributes":{"a":"\\ud834"}}'),
  ),
  refused('zero-party: 1,000 interests', 'huge_arrays', 'POST /webhooks/zero-party', 422, (c) =>
    zeroParty(c, JSON.stringify({ email: 'a@example.com', interests: Array(1000).fill('tea') })),
  ),
  refused('zero-party: 60 KB external id', 'huge_strings', 'POST /webhooks/zero-party', 422, (c) =>
    zeroParty(c, JSON.stringify({ external_id: big(60_000) })),
  ),
  {
    name: 'zero-party: __proto__, big and tiny numbers in attributes',
    klass: 'proto_keys',
    route: 'POST /webhooks/zero-party',
    build(c) {
      const email = `${c.rng.id('zp')}@example.com`;
      const body = `{"email":"${email}","quiz_version":9007199254740990,"completed_at":"+275760-01-01T00:00:00Z","attributes":{"__proto__":{"x":1},"constructor":{"prototype":1},"big":1e308,"tiny":5e-324,"neg":-0,"huge":9007199254740993}}`;
      return {
        request: zeroParty(c, body),
        expect: {
          kind: 'stored',
          status: 200,
          stored: [{ table: 'zero_party_submissions', column: 'email', value: email }],
        },
        personal: [],
      };
    },
  },
  refused('zero-party: ingest key in the query', 'key_in_query', 'POST /webhooks/zero-party', 401, (c) =>
    zeroParty(c, '{"email":"a@b.co"}', `${c.zeroPartyQuery}&k=${c.ingestKey}`),
  ),
  // ---- POST /pixel/collect
  refused('pixel: price_cents 2^53 + 1', 'big_numbers', 'POST /pixel/collect', 422, (c) =>
    collect(
      c,
      collectText(c, [pixelEvent(c, { price_cents: '__N__' })]).replace('"__N__"', '9007199254740993'),
    ),
  ),
  refused('pixel: dwell_ms 1e308', 'big_numbers', 'POST /pixel/collect', 422, (c) =>
    collect(c, collectText(c, [pixelEvent(c, { dwell_ms: 1e308 })])),
  ),
  refused('pixel: raw_props 10,000 levels deep', 'deep_nesting', 'POST /pixel/collect', 422, (c) =>
    collect(
      c,
      collectText(c, [pixelEvent(c, { raw_props: '__D__' })]).replace('"__D__"', `{"a":${deep(10_000)}}`),
    ),
  ),
  refused('pixel: NUL in a raw_props key', 'nul', 'POST /pixel/collect', 422, (c) =>
    collect(c, collectText(c, [pixelEvent(c, { raw_props: { 'utm\u0000': 'x' } })])),
  ),
  refused('pixel: unpaired surrogate in raw_props', 'surrogates', 'POST /pixel/collect', 422, (c) =>
    collect(c, collectText(c, [pixelEvent(c, { raw_props: { a: '\udbff' } })])),
  ),
  refused('pixel: invalid UTF-8', 'invalid_utf8', 'POST /pixel/collect', 422, (c) =>
    collect(c, withBytes(`{"key":"${c.pixelKey}","events":[{"anonymous_id":"`, INVALID_UTF8, '"}]}')),
  ),
  refused('pixel: __proto__ as an event field', 'proto_keys', 'POST /pixel/collect', 422, (c) =>
    collect(c, collectText(c, [{ ...pixelEvent(c), ...(JSON.parse('{"__proto__":1}') as object) }])),
  ),
  refused('pixel: occurred_at year 275760', 'extreme_dates', 'POST /pixel/collect', 422, (c) =>
    collect(c, collectText(c, [pixelEvent(c, { occurred_at: '+275760-09-13T00:00:00Z' })])),
  ),
  refused('pixel: 48 KB + 1', 'huge_strings', 'POST /pixel/collect', 413, (c) =>
    collect(c, big(48 * 1024 + 1)),
  ),
  refused('pixel: 51 events', 'huge_arrays', 'POST /pixel/collect', 422, (c) =>
    collect(
      c,
      collectText(
        c,
        Array.from({ length: 51 }, () => pixelEvent(c)),
      ),
    ),
  ),
  refused('pixel: malformed JSON', 'malformed_json', 'POST /pixel/collect', 422, (c) =>
    collect(c, '{"key":'),
  ),
  refused('pixel: no Origin', 'duplicate_headers', 'POST /pixel/collect', 403, (c) => ({
    ...collect(c, collectText(c, [pixelEvent(c)])),
    headers: { 'content-type': json },
  })),
  {
    name: 'pixel: __proto__ and numbers in raw_props',
    klass: 'proto_keys',
    route: 'POST /pixel/collect',
    build(c) {
      const e = pixelEvent(c, { raw_props: '__R__', price_cents: 9007199254740990 });
      const body = collectText(c, [e]).replace(
        '"__R__"',
        '{"__proto__":{"admin":true},"constructor":1,"n":1e308,"z":-0}',
      );
      return {
        request: collect(c, body),
        expect: {
          kind: 'stored',
          status: 204,
          stored: [{ table: 'pixel_events', column: 'event_id', value: e.event_id }],
        },
        personal: [],
      };
    },
  },
  // ---- the loader script, the OpenAPI document, anything else
  {
    name: 'pixel script: percent junk in the query',
    klass: 'percent_junk',
    route: 'GET /pixel/v1/service-pixel.js',
    build: () => ({
      request: { method: 'GET', path: '/pixel/v1/service-pixel.js?%ZZ=%00&a=%E0%A4' },
      expect: { kind: 'answered', status: 200 },
      personal: [],
    }),
  },
  refused('pixel script: POST', 'unknown_method', 'GET /pixel/v1/service-pixel.js', 404, () => ({
    method: 'POST',
    path: '/pixel/v1/service-pixel.js',
    body: '{}',
  })),
  {
    name: 'openapi: junk query',
    klass: 'percent_junk',
    route: 'GET /v1/openapi.json',
    build: () => ({
      request: { method: 'GET', path: '/v1/openapi.json?x=%00%ZZ' },
      expect: { kind: 'answered', status: 200 },
      personal: [],
    }),
  },
  refused('openapi: DELETE', 'unknown_method', 'GET /v1/openapi.json', 404, () => ({
    method: 'DELETE',
    path: '/v1/openapi.json',
  })),
  refused('path: percent junk', 'percent_junk', 'OTHER', 404, () => ({
    method: 'GET',
    path: '/%ZZ/%00/..%2f..%2fetc/passwd',
  })),
  ...matrixCases(),
];

/** What can be wrong with an answer besides its status. */
export interface AnswerProblem {
  readonly kind: 'status' | 'body_shape' | 'leak' | 'wrongly_accepted';
  readonly detail: string;
}

const STACK = /\n\s+at [^\n]+:\d+:\d+|node:internal|\.ts:\d+/;
const SQL = /\b(?:select .+ from|insert into|violates|syntax error at|relation "|duplicate key value)\b/i;

/**
 * The shape the spec gives a status (spec "Errors"): `{detail: string}`, the 422 validation body,
 * the plain-text 413 (or its JSON form for rows), an empty 204. Null when the answer fits.
 */
export function bodyShapeProblem(a: RawAnswer): string | null {
  const j = a.json as { detail?: unknown } | undefined;
  if (a.status === 204) return a.text === '' ? null : '204 with a body';
  if (a.status === 413)
    return a.text === 'payload too large' || typeof j?.detail === 'string'
      ? null
      : '413 body is neither text nor {detail}';
  if (a.status === 422) {
    if (!Array.isArray(j?.detail) || j.detail.length === 0) return '422 without a detail list';
    const bad = (j.detail as unknown[]).find((e) => {
      const x = e as { loc?: unknown; msg?: unknown; type?: unknown };
      return !Array.isArray(x.loc) || typeof x.msg !== 'string' || typeof x.type !== 'string';
    });
    return bad ? `422 entry without loc/msg/type: ${JSON.stringify(bad).slice(0, 200)}` : null;
  }
  if (a.status >= 400) {
    if (typeof j?.detail !== 'string') return `${a.status} without {detail: string}`;
    if ((a.status === 429 || a.status === 503) && !a.headers['retry-after'])
      return `${a.status} without Retry-After`;
    return null;
  }
  return null;
}

/** A stack trace, SQL, or one of the request's personal values in the answer. */
export function leakProblem(a: RawAnswer, personal: readonly string[]): string | null {
  if (STACK.test(a.text)) return 'stack trace in the answer';
  if (SQL.test(a.text)) return 'SQL in the answer';
  const echoed = personal.find((p) => p.length >= 6 && a.text.includes(p));
  return echoed ? 'a submitted email or phone is echoed' : null;
}

/** Everything wrong with `a` as the answer to `built` (load shedding aside: see `isLoadShedding`). */
export function answerProblems(built: BuiltCase, a: RawAnswer): AnswerProblem[] {
  const out: AnswerProblem[] = [];
  const shape = bodyShapeProblem(a);
  if (shape) out.push({ kind: 'body_shape', detail: shape });
  const leak = leakProblem(a, built.personal);
  if (leak) out.push({ kind: 'leak', detail: leak });
  if (isLoadShedding(a)) return out;
  const e = built.expect;
  const j = a.json as { accepted?: unknown; dropped_invalid?: unknown } | undefined;
  if (e.kind === 'refused' && a.status < 300)
    out.push({ kind: 'wrongly_accepted', detail: `${a.status} instead of ${e.status}` });
  else if (e.kind === 'dropped' && a.status === 200 && j?.accepted !== 0)
    out.push({ kind: 'wrongly_accepted', detail: `accepted ${String(j?.accepted)} instead of dropping` });
  const want = e.kind === 'dropped' ? 200 : e.status;
  if (a.status !== want) out.push({ kind: 'status', detail: `${a.status} instead of ${want}` });
  else if (e.kind === 'dropped' && j?.dropped_invalid !== e.dropped)
    out.push({
      kind: 'status',
      detail: `dropped_invalid ${String(j?.dropped_invalid)} instead of ${e.dropped}`,
    });
  return out;
}

/** A 503 or 429 with Retry-After: load shedding, a defined answer whatever the case expected. */
export function isLoadShedding(a: RawAnswer): boolean {
  return (a.status === 503 || a.status === 429) && a.headers['retry-after'] !== undefined;
}
