/**
 * Bodies of POST /v1/erasures and POST /v1/exports: a person named by one or more of their
 * identifiers. Whether at least one is present, the email's shape and the phone's validity are checked
 * by the domain after the schema (`validatePersonRequest`), because the 422 must name the field.
 */
const identifierProperties = {
  external_id: {
    type: ['string', 'null'],
    maxLength: 256,
    description: 'The customer id in the client system (orders.customer_id, customers.external_id).',
  },
  email: {
    type: ['string', 'null'],
    maxLength: 320,
    description: 'Email; compared lower-cased and trimmed, like ingest stores it.',
  },
  phone: {
    type: ['string', 'null'],
    maxLength: 64,
    description: 'Phone; normalised to E.164, default region US, like ingest stores it.',
  },
} as const;

export const erasureRequestSchema = {
  type: 'object',
  description:
    'Erase a person: at least one of external_id, email, phone (or, for a browser never tied to a person, anonymous_id). Unknown fields are rejected (422).',
  additionalProperties: false,
  properties: {
    ...identifierProperties,
    anonymous_id: {
      type: ['string', 'null'],
      maxLength: 128,
      description:
        "Not a spec field. A browser (the pixel's anonymous_id, compared verbatim): its pixel events lose raw_props, search and page_title, also when no session of it was ever tied to a person.",
    },
    suppress: {
      type: ['boolean', 'null'],
      description:
        'Also suppress the identifiers: later ingest naming one of them is dropped and counted (suppressed_identity); with anonymous_id, later pixel events of that browser are dropped too (counted, code suppressed_browser).',
    },
  },
} as const;

export const exportRequestSchema = {
  type: 'object',
  description:
    'Export everything held about a person: at least one of external_id, email, phone. Unknown fields are rejected (422).',
  additionalProperties: false,
  properties: identifierProperties,
} as const;

/** POST /v1/erasures or /v1/exports body after the schema (not yet normalised). */
export interface PersonRequestInput {
  readonly external_id?: string | null;
  readonly email?: string | null;
  readonly phone?: string | null;
  /** Erasures only (not a spec field): a browser, by the pixel's anonymous id. */
  readonly anonymous_id?: string | null;
  readonly suppress?: boolean | null;
}
