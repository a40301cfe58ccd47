import { COLUMN_LIMITS } from './column-limits.js';

/** Largest number of events in one POST /pixel/collect call. */
export const MAX_PIXEL_EVENTS = 50;

/** Values of a pixel event's `event_type`. */
export const PIXEL_EVENT_TYPES = [
  'page_view',
  'product_view',
  'search',
  'add_to_cart',
  'checkout_started',
] as const;

const boundedString = (maxLength: number, description: string) =>
  ({ type: ['string', 'null'], maxLength, description }) as const;
const countOrNull = (description: string) =>
  ({ type: ['integer', 'null'], minimum: 0, maximum: COLUMN_LIMITS.SAFE_INTEGER_MAX, description }) as const;

/** One browser event (spec "Pixel event"). Unknown fields are rejected. */
export const pixelEventSchema = {
  type: 'object',
  description: 'One browser event. Unknown fields are rejected (422).',
  additionalProperties: false,
  required: ['event_id', 'event_type', 'occurred_at', 'anonymous_id'],
  properties: {
    event_id: { type: 'string', format: 'uuid', description: 'Event id (UUID).' },
    event_type: {
      // No `type` on purpose: any value outside the enum is reported as `enum`.
      enum: [...PIXEL_EVENT_TYPES],
      description: 'page_view, product_view, search, add_to_cart or checkout_started.',
    },
    occurred_at: {
      type: 'string',
      format: 'date-time',
      description:
        'When it happened, with UTC offset. Events older than 30 days or more than 1 hour in the future are dropped quietly.',
    },
    anonymous_id: {
      type: 'string',
      minLength: 1,
      maxLength: 128,
      description: 'Browser-scoped anonymous id.',
    },
    session_id: boundedString(128, 'Session id.'),
    url_path: boundedString(2000, 'Path of the page.'),
    page_title: boundedString(512, 'Title of the page.'),
    referrer_host: boundedString(256, 'Host of the referrer.'),
    product_external_id: boundedString(128, 'Same product id as sent on orders.'),
    collection: boundedString(256, 'Collection or category.'),
    search: boundedString(512, 'Search terms.'),
    price_cents: countOrNull('Price in cents.'),
    dwell_ms: countOrNull('Time on page in milliseconds.'),
    consent_state: boundedString(64, 'Consent state. Events without granted consent are dropped silently.'),
    raw_props: {
      type: 'object',
      description: 'Free-form properties; may carry utm_content and similar keys.',
    },
  },
} as const;

/** Body of POST /pixel/collect (spec "Collector request"). Unknown top-level fields are rejected. */
export const collectorRequestSchema = {
  type: 'object',
  description: 'Browser event batch.',
  additionalProperties: false,
  required: ['key', 'events'],
  properties: {
    key: { type: 'string', minLength: 3, maxLength: 128, description: 'Pixel key (prefix pk_).' },
    events: {
      type: 'array',
      minItems: 1,
      maxItems: MAX_PIXEL_EVENTS,
      items: pixelEventSchema,
      description: 'Browser events, 1 to 50 items.',
    },
  },
} as const;

/** A pixel event after schema validation. */
export interface PixelEventInput {
  readonly event_id: string;
  readonly event_type: (typeof PIXEL_EVENT_TYPES)[number];
  readonly occurred_at: string;
  readonly anonymous_id: string;
  readonly session_id?: string | null;
  readonly url_path?: string | null;
  readonly page_title?: string | null;
  readonly referrer_host?: string | null;
  readonly product_external_id?: string | null;
  readonly collection?: string | null;
  readonly search?: string | null;
  readonly price_cents?: number | null;
  readonly dwell_ms?: number | null;
  readonly consent_state?: string | null;
  readonly raw_props?: Readonly<Record<string, unknown>>;
}

/** POST /pixel/collect body after schema validation. */
export interface CollectorRequestInput {
  readonly key: string;
  readonly events: readonly PixelEventInput[];
}
