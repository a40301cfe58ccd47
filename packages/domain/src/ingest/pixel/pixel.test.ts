import type { PixelEventInput } from '@holdfast/contracts';
import { describe, expect, it } from 'vitest';
import { browserSuppressionCheck } from '../../privacy/suppression.js';
import { filterPixelEvents, isConsentGranted } from './filter-pixel-events.js';
import { pixelUrlPath } from './pixel-url-path.js';
import { validateCollectorRequest } from './validate-collector-request.js';

const now = new Date('2024-06-01T12:00:00Z');
const event = (overrides: Record<string, unknown> = {}) => ({
  event_id: '0b6c2f0e-9a1f-4f53-9a43-6b1f3f3c2d10',
  event_type: 'page_view',
  occurred_at: '2024-06-01T11:59:00Z',
  anonymous_id: 'anon-1',
  consent_state: 'granted',
  ...overrides,
});
const body = (...events: Record<string, unknown>[]) => ({ key: 'pk_live_abc', events });

describe('validateCollectorRequest', () => {
  it('given a well-formed request, when validated, then it passes', () => {
    const request = body(
      event({ raw_props: { utm_content: 't1', nested: { any: true } }, price_cents: 0, session_id: null }),
    );
    expect(validateCollectorRequest(request)).toEqual({ ok: true, request });
  });

  it.each([
    [
      { ...body(event()), extra: 1 },
      { type: 'extra_forbidden', loc: ['body', 'extra'], msg: 'Extra inputs are not permitted', input: 1 },
    ],
    [
      body(event({ color: 'red' })),
      {
        type: 'extra_forbidden',
        loc: ['body', 'events', 0, 'color'],
        msg: 'Extra inputs are not permitted',
        input: 'red',
      },
    ],
    [
      body(event({ event_id: 'abc' })),
      {
        type: 'uuid_parsing',
        loc: ['body', 'events', 0, 'event_id'],
        msg: 'Input should be a valid UUID',
        input: 'abc',
      },
    ],
    [
      body(event({ occurred_at: 'soon' })),
      {
        type: 'datetime_parsing',
        loc: ['body', 'events', 0, 'occurred_at'],
        msg: 'Input should be a valid datetime',
        input: 'soon',
      },
    ],
    [
      body(event({ occurred_at: '2024-06-01T11:59:00' })),
      {
        type: 'timezone_aware',
        loc: ['body', 'events', 0, 'occurred_at'],
        msg: 'Input should have timezone info',
        input: '2024-06-01T11:59:00',
      },
    ],
    [
      body(event({ occurred_at: '2024-06-01T23:59:60Z' })),
      {
        type: 'datetime_parsing',
        loc: ['body', 'events', 0, 'occurred_at'],
        msg: 'Input should be a valid datetime',
        input: '2024-06-01T23:59:60Z',
      },
    ],
    [
      body(event({ event_type: 'purchase' })),
      {
        type: 'enum',
        loc: ['body', 'events', 0, 'event_type'],
        msg: "Input should be 'page_view', 'product_view', 'search', 'add_to_cart' or 'checkout_started'",
        input: 'purchase',
        ctx: { expected: "'page_view', 'product_view', 'search', 'add_to_cart' or 'checkout_started'" },
      },
    ],
    [
      body(event({ anonymous_id: '' })),
      {
        type: 'string_too_short',
        loc: ['body', 'events', 0, 'anonymous_id'],
        msg: 'String should have at least 1 character',
        input: '',
        ctx: { min_length: 1 },
      },
    ],
    [
      body(event({ anonymous_id: 'a'.repeat(129) })),
      {
        type: 'string_too_long',
        loc: ['body', 'events', 0, 'anonymous_id'],
        msg: 'String should have at most 128 characters',
        input: 'a'.repeat(129),
        ctx: { max_length: 128 },
      },
    ],
    [
      body(event({ consent_state: 'g'.repeat(65) })),
      {
        type: 'string_too_long',
        loc: ['body', 'events', 0, 'consent_state'],
        msg: 'String should have at most 64 characters',
        input: 'g'.repeat(65),
        ctx: { max_length: 64 },
      },
    ],
    [
      body(event({ url_path: '/'.repeat(2001) })),
      {
        type: 'string_too_long',
        loc: ['body', 'events', 0, 'url_path'],
        msg: 'String should have at most 2000 characters',
        // Inputs longer than 256 characters are not echoed.
        ctx: { max_length: 2000 },
      },
    ],
    [
      body(event({ price_cents: -1 })),
      {
        type: 'greater_than_equal',
        loc: ['body', 'events', 0, 'price_cents'],
        msg: 'Input should be greater than or equal to 0',
        input: -1,
        ctx: { ge: 0 },
      },
    ],
    [
      body(event({ dwell_ms: 1.5 })),
      {
        type: 'int_from_float',
        loc: ['body', 'events', 0, 'dwell_ms'],
        msg: 'Input should be a valid integer, got a number with a fractional part',
        input: 1.5,
      },
    ],
    [
      body(event({ raw_props: [] })),
      {
        type: 'dict_type',
        loc: ['body', 'events', 0, 'raw_props'],
        msg: 'Input should be a valid dictionary',
      },
    ],
    [
      { key: 'pk', events: [event()] },
      {
        type: 'string_too_short',
        loc: ['body', 'key'],
        msg: 'String should have at least 3 characters',
        input: 'pk',
        ctx: { min_length: 3 },
      },
    ],
    [{ events: [event()] }, { type: 'missing', loc: ['body', 'key'], msg: 'Field required' }],
    [
      body(),
      {
        type: 'too_short',
        loc: ['body', 'events'],
        msg: 'List should have at least 1 item after validation, not 0',
        ctx: { field_type: 'List', min_length: 1, actual_length: 0 },
      },
    ],
    [
      body(...Array.from({ length: 51 }, () => event())),
      {
        type: 'too_long',
        loc: ['body', 'events'],
        msg: 'List should have at most 50 items after validation, not 51',
        ctx: { field_type: 'List', max_length: 50, actual_length: 51 },
      },
    ],
  ])('given %#, when validated, then the 422 entry is exact', (request, entry) => {
    expect(validateCollectorRequest(request)).toEqual({ ok: false, detail: [entry] });
  });
});

describe('filterPixelEvents', () => {
  const at = (iso: string) => event({ occurred_at: iso }) as PixelEventInput;

  it.each([
    [
      '2024-05-02T12:00:00Z',
      'kept (exactly 30 days old)',
      1,
      { too_old: 0, too_new: 0, no_consent: 0, suppressed: 0 },
    ],
    ['2024-05-02T11:59:59Z', 'too_old', 0, { too_old: 1, too_new: 0, no_consent: 0, suppressed: 0 }],
    [
      '2024-06-01T13:00:00Z',
      'kept (exactly 1 hour ahead)',
      1,
      { too_old: 0, too_new: 0, no_consent: 0, suppressed: 0 },
    ],
    ['2024-06-01T13:00:01Z', 'too_new', 0, { too_old: 0, too_new: 1, no_consent: 0, suppressed: 0 }],
    [
      '2024-06-01T14:00:00+02:00',
      'kept (offset applied)',
      1,
      { too_old: 0, too_new: 0, no_consent: 0, suppressed: 0 },
    ],
  ])('given occurred_at %s, when filtered, then it is %s', (iso, _outcome, kept, dropped) => {
    const result = filterPixelEvents([at(iso)], { now });
    expect(result.kept.length).toBe(kept);
    expect(result.dropped).toEqual(dropped);
  });

  it.each([
    ['granted', true],
    [' Granted ', true],
    ['all', true],
    ['analytics', true],
    ['not_required', true],
    ['denied', false],
    ['pending', false],
    ['', false],
    [null, false],
    [undefined, false],
  ])('given consent_state %j, when checked, then granted is %s', (state, granted) => {
    expect(isConsentGranted(state)).toBe(granted);
    const result = filterPixelEvents([event({ consent_state: state }) as PixelEventInput], { now });
    expect(result.dropped.no_consent).toBe(granted ? 0 : 1);
  });

  it('given an old event without consent, when filtered, then it counts once, as too_old', () => {
    expect(
      filterPixelEvents([at('2024-01-01T00:00:00Z'), event({ consent_state: null }) as PixelEventInput], {
        now,
      }).dropped,
    ).toEqual({ too_old: 1, too_new: 0, no_consent: 1, suppressed: 0 });
  });

  it('given a kept event, when filtered, then it is normalised with nulls and a UTC occurred_at', () => {
    const result = filterPixelEvents(
      [
        event({
          occurred_at: '2024-06-01T13:30:00+02:00',
          raw_props: { utm_content: 't1' },
        }) as PixelEventInput,
      ],
      { now },
    );
    expect(result.kept).toEqual([
      {
        event_id: '0b6c2f0e-9a1f-4f53-9a43-6b1f3f3c2d10',
        event_type: 'page_view',
        occurred_at: '2024-06-01T11:30:00.000Z',
        anonymous_id: 'anon-1',
        session_id: null,
        url_path: null,
        page_title: null,
        referrer_host: null,
        product_external_id: null,
        collection: null,
        search: null,
        price_cents: null,
        dwell_ms: null,
        consent_state: 'granted',
        raw_props: { utm_content: 't1' },
      },
    ]);
  });
});

describe('filterPixelEvents with a suppressed browser', () => {
  // A readable stand-in for the blind index; the rule only compares indexes.
  const indexed: string[] = [];
  const fakeIndex = (id: string) => {
    indexed.push(id);
    return `anonymous_id:${id}`;
  };
  const suppressAnon7 = browserSuppressionCheck(new Set(['anonymous_id:anon-7']), fakeIndex);

  it('given no suppressed browser, then there is no check at all (the collector pays nothing)', () => {
    expect(browserSuppressionCheck(new Set(), fakeIndex)).toBeUndefined();
  });

  it("given anon-7 suppressed, when its events and another browser's are filtered, then only its are dropped, counted as suppressed", () => {
    indexed.length = 0;
    const result = filterPixelEvents(
      [
        event({ anonymous_id: 'anon-7' }) as PixelEventInput,
        event({ anonymous_id: 'anon-1' }) as PixelEventInput,
        event({ anonymous_id: 'anon-7', event_type: 'search' }) as PixelEventInput,
      ],
      { now, suppressed: suppressAnon7 },
    );
    expect(result.kept.map((e) => e.anonymous_id)).toEqual(['anon-1']);
    expect(result.dropped).toEqual({ too_old: 0, too_new: 0, no_consent: 0, suppressed: 2 });
    // Each with its own code (what a dry run lists), not the person's suppressed_identity.
    expect(result.drops.map((d) => [d.index, d.code])).toEqual([
      [0, 'suppressed_browser'],
      [2, 'suppressed_browser'],
    ]);
  });

  it('given the anonymous id spelt differently, when filtered, then it is another browser (verbatim, like the erasure stores it)', () => {
    const result = filterPixelEvents([event({ anonymous_id: 'ANON-7' }) as PixelEventInput], {
      now,
      suppressed: suppressAnon7,
    });
    expect(result.dropped.suppressed).toBe(0);
    expect(result.kept).toHaveLength(1);
  });

  it('given old or unconsented events of a suppressed browser, when filtered, then they count once under their first reason, and are never indexed', () => {
    indexed.length = 0;
    const result = filterPixelEvents(
      [
        event({ anonymous_id: 'anon-7', occurred_at: '2024-01-01T00:00:00Z' }) as PixelEventInput,
        event({ anonymous_id: 'anon-7', consent_state: 'denied' }) as PixelEventInput,
      ],
      { now, suppressed: suppressAnon7 },
    );
    expect(result.dropped).toEqual({ too_old: 1, too_new: 0, no_consent: 1, suppressed: 0 });
    expect(result.drops.map((d) => d.code)).toEqual(['too_old', 'no_consent']);
    expect(indexed).toEqual([]);
  });
});

describe('pixelUrlPath', () => {
  it.each([
    ['/products/red-shoes', '/products/red-shoes'],
    ['/products/123456789012', '/products/123456789012'],
    ['/checkout?email=ann@example.com&token=abc', '/checkout'],
    ['/thanks#ann@example.com', '/thanks'],
    ['/account/ann.lee@example.com/orders', '/account/[email]/orders'],
    ['/account/ann%40example.com', '/account/[email]'],
    ['/u/+1-415-555-0100/profile', '/u/[phone]/profile'],
    ['/u/%2B14155550100', '/u/[phone]'],
    ['?q=1', ''],
  ])('given the path %j, when stored, then it is %j', (raw, stored) => {
    expect(pixelUrlPath(raw)).toBe(stored);
  });

  it('given no path, when stored, then it stays null', () => {
    expect(pixelUrlPath(null)).toBeNull();
    expect(pixelUrlPath(undefined)).toBeNull();
  });

  it('given an event with a query string in its path, when filtered, then the kept event has the path alone', () => {
    const { kept } = filterPixelEvents(
      [event({ url_path: '/p/ann@example.com?utm_content=t1' }) as PixelEventInput],
      { now },
    );
    expect(kept[0]!.url_path).toBe('/p/[email]');
  });
});
