import { COLUMN_LIMITS } from './column-limits.js';
import { MAX_BATCH_ROWS } from './orders-request.schema.js';

const { ID_CHARS, EMAIL_CHARS, PHONE_CHARS, NAME_CHARS, TEXT_CHARS } = COLUMN_LIMITS;
const nullableString = (description: string, maxLength: number = TEXT_CHARS) =>
  ({ type: ['string', 'null'], maxLength, description }) as const;
const nullableBoolean = (description: string) => ({ type: ['boolean', 'null'], description }) as const;

/** Values of `subscription_status` (spec "Subscription status"). */
export const SUBSCRIPTION_STATUSES = ['active', 'paused', 'cancelled'] as const;

const addressSchema = {
  type: ['object', 'null'],
  description: 'Written only when street, city or zip is present. country defaults to US.',
  properties: {
    street: nullableString('Street line.'),
    city: nullableString('City.'),
    state: nullableString('State or region.'),
    zip: nullableString('Postal code.'),
    country: nullableString('Country. Defaults to US.'),
  },
} as const;

const consentSchema = {
  type: ['object', 'null'],
  description:
    'Boolean consent flags. Omitted (or null) keys keep their current value. SMS sends are gated on sms alone.',
  properties: {
    marketing_email: nullableBoolean('Marketing email consent.'),
    sms: nullableBoolean('SMS consent; true only where prior express written consent is held.'),
    suppressed: nullableBoolean('Email suppressed (for example unsubscribed).'),
    bounced: nullableBoolean('Email bounced.'),
  },
} as const;

/** One element of `customers` (spec "Customer row"). Unknown fields are silently ignored. */
export const customerRowSchema = {
  type: 'object',
  description: 'One customer. Unknown fields are silently ignored.',
  properties: {
    external_id: nullableString('Same value as orders.customer_id.', ID_CHARS),
    email: nullableString(
      'At least one of external_id, email, phone is needed, otherwise the row is skipped.',
      EMAIL_CHARS,
    ),
    phone: nullableString('Normalised to E.164, default region US.', PHONE_CHARS),
    name: nullableString('Customer name.', NAME_CHARS),
    address: addressSchema,
    consent: consentSchema,
    source_label: nullableString('Provenance label. Default custom-api.'),
    subscription_status: {
      // No `type` on purpose: any value outside the enum (a number too) is reported as `enum`.
      enum: [...SUBSCRIPTION_STATUSES, null],
      description:
        'active, paused, cancelled. Any other value is a 422. Omit for customers who never subscribed.',
    },
    subscription_started_at: nullableString('ISO 8601 with offset. Write-once; the earliest value wins.'),
  },
} as const;

/** The fields of a customer row that are read; anything else is ignored. */
export const CUSTOMER_ROW_FIELDS: readonly string[] = Object.keys(customerRowSchema.properties);

/**
 * Body of POST /ingest/customers. As for orders, the 1..5000 row bounds are enforced by the gateway
 * before schema validation (see `countRows`).
 */
export const customersRequestSchema = {
  type: 'object',
  description: 'Batch upsert of customers.',
  required: ['customers'],
  properties: {
    customers: {
      type: 'array',
      minItems: 1,
      maxItems: MAX_BATCH_ROWS,
      items: customerRowSchema,
      description: 'Customer rows, 1 to 5000 items. Empty batch gives 400; more than 5000 gives 413.',
    },
  },
} as const;

/** A customer row as it arrives after schema validation. */
export interface CustomerRowInput {
  readonly external_id?: string | null;
  readonly email?: string | null;
  readonly phone?: string | null;
  readonly name?: string | null;
  readonly address?: {
    readonly street?: string | null;
    readonly city?: string | null;
    readonly state?: string | null;
    readonly zip?: string | null;
    readonly country?: string | null;
  } | null;
  readonly consent?: {
    readonly marketing_email?: boolean | null;
    readonly sms?: boolean | null;
    readonly suppressed?: boolean | null;
    readonly bounced?: boolean | null;
  } | null;
  readonly source_label?: string | null;
  readonly subscription_status?: (typeof SUBSCRIPTION_STATUSES)[number] | null;
  readonly subscription_started_at?: string | null;
  readonly [unknownField: string]: unknown;
}
