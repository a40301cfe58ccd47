import { COLUMN_LIMITS } from './column-limits.js';

/** Largest batch of POST /ingest/orders and POST /ingest/customers (spec "Limits"). */
export const MAX_BATCH_ROWS = 5000;

const { ID_CHARS, EMAIL_CHARS, PHONE_CHARS, NAME_CHARS, TEXT_CHARS, LIST_ITEMS, LIST_ITEM_CHARS } =
  COLUMN_LIMITS;
const nullableString = (description: string, maxLength: number = TEXT_CHARS) =>
  ({ type: ['string', 'null'], maxLength, description }) as const;
const nullableNumber = (description: string) => ({ type: ['number', 'null'], description }) as const;

/**
 * One element of `orders` (spec "Order row"). Unknown fields are allowed here and reported by the
 * classifier as the dry-run warning `unknown_fields_ignored`; they are never stored.
 *
 * `customer_id` carries no `minLength`: a blank customer id is a blank identity (the row is dropped
 * only when email and phone are blank too), not a 422. `order_date` carries no `format`: an
 * unparseable date drops the row rather than failing the request.
 */
export const orderRowSchema = {
  type: 'object',
  description:
    'One order. Unknown fields are accepted and discarded (dry-run warning unknown_fields_ignored).',
  required: ['order_id', 'customer_id', 'order_date', 'order_amount', 'product_name'],
  properties: {
    order_id: {
      type: 'string',
      minLength: 1,
      maxLength: ID_CHARS,
      description: 'Idempotency key. Unique per client.',
    },
    customer_id: {
      type: 'string',
      maxLength: ID_CHARS,
      description:
        'Must equal customers.external_id. Never changes after first write. A blank value counts as no customer id.',
    },
    order_date: {
      type: 'string',
      description:
        'ISO 8601 timestamp. Unparseable: the row is dropped. Without offset: read as UTC with a warning. Never changes after first write.',
    },
    order_amount: {
      type: 'number',
      description:
        'Gross total in major units, before refunds. A non-numeric value (for example a string) is a 422 for the whole request. An unparseable value drops the row.',
    },
    product_name: {
      type: 'string',
      minLength: 1,
      maxLength: TEXT_CHARS,
      description: 'Primary product, single line.',
    },
    email: nullableString('Buyer email.', EMAIL_CHARS),
    phone: nullableString('Normalised to E.164, default region US.', PHONE_CHARS),
    customer_name: nullableString('Buyer name.', NAME_CHARS),
    source: nullableString('Acquisition channel label, for example email, sms, paid_social, organic.'),
    order_channel: nullableString('For example email, web, pos. Used only to flag email-attributed orders.'),
    currency: nullableString(
      '3-letter ISO 4217 code. Default USD. A longer string fails the whole orders batch. Unknown 3-letter codes convert at rate 1.0.',
    ),
    shipping_city: nullableString('Geo enrichment.'),
    shipping_state: nullableString('Geo enrichment.'),
    shipping_zip: nullableString('Geo enrichment.'),
    refunded_amount: nullableNumber('Cumulative refunded amount. Merges forward only.'),
    discount_total: nullableNumber('Discount applied.'),
    discount_pct: nullableNumber('Discount percentage.'),
    discount_codes: {
      type: ['array', 'null'],
      maxItems: LIST_ITEMS,
      items: { type: 'string', maxLength: LIST_ITEM_CHARS },
      description: 'Codes used.',
    },
    cancelled_at: nullableString('ISO 8601 time of cancellation. Merges forward only.'),
  },
} as const;

/** The fields of an order row that are stored; anything else is `unknown_fields_ignored`. */
export const ORDER_ROW_FIELDS: readonly string[] = Object.keys(orderRowSchema.properties);

/**
 * Body of POST /ingest/orders. The row-count bounds are documented here but enforced by the gateway
 * BEFORE schema validation (empty → 400, more than 5,000 → JSON 413): see `countRows`.
 */
export const ordersRequestSchema = {
  type: 'object',
  description: 'Batch upsert of orders.',
  required: ['orders'],
  properties: {
    orders: {
      type: 'array',
      minItems: 1,
      maxItems: MAX_BATCH_ROWS,
      items: orderRowSchema,
      description: 'Order rows, 1 to 5000 items. Empty batch gives 400; more than 5000 gives 413.',
    },
  },
} as const;

/** An order row as it arrives after schema validation (optional fields may be absent). */
export interface OrderRowInput {
  readonly order_id: string;
  readonly customer_id: string;
  readonly order_date: string;
  readonly order_amount: number;
  readonly product_name: string;
  readonly email?: string | null;
  readonly phone?: string | null;
  readonly customer_name?: string | null;
  readonly source?: string | null;
  readonly order_channel?: string | null;
  readonly currency?: string | null;
  readonly shipping_city?: string | null;
  readonly shipping_state?: string | null;
  readonly shipping_zip?: string | null;
  readonly refunded_amount?: number | null;
  readonly discount_total?: number | null;
  readonly discount_pct?: number | null;
  readonly discount_codes?: readonly string[] | null;
  readonly cancelled_at?: string | null;
  readonly [unknownField: string]: unknown;
}
