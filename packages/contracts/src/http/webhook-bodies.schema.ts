/**
 * POST /webhooks/custom-api body (spec "Inbound customer event"). Free-form: the schema documents the
 * keys that are read; whether an identity is present (else 400) is decided by the domain parser.
 */
export const customApiEventSchema = {
  type: 'object',
  description:
    'Single customer identity or consent event (free-form object). At least one of email, phone or external_id is required, else 400.',
  properties: {
    external_id: { type: ['string', 'number', 'null'], description: 'Customer id in the client system.' },
    customer_id: { type: ['string', 'number', 'null'], description: 'Alias of external_id.' },
    email: { type: ['string', 'null'], description: 'Email.' },
    phone: { type: ['string', 'null'], description: 'Phone; normalised to E.164, default region US.' },
    name: { type: ['string', 'null'], description: 'Name.' },
    address: { type: ['object', 'null'], description: 'street, city, state, zip, country.' },
    consent: {
      type: ['object', 'null'],
      description: 'marketing_email, sms, suppressed, bounced (booleans).',
    },
    event_type: { type: ['string', 'null'], description: 'Free-form event type. Default custom.' },
    source_label: { type: ['string', 'null'], description: 'Provenance label. Default custom-api.' },
  },
} as const;

/** POST /webhooks/zero-party body (spec "Zero-party submission"). Free-form. */
export const zeroPartySubmissionSchema = {
  type: 'object',
  description:
    'Quiz and preference submission (free-form object). At least one of email or an external id is required. Deduplicated on content.',
  properties: {
    email: { type: ['string', 'null'], description: 'Email.' },
    external_customer_id: {
      type: ['string', 'number', 'null'],
      description: 'Customer id in the client system.',
    },
    external_id: { type: ['string', 'number', 'null'], description: 'Alias of external_customer_id.' },
    customer_id: { type: ['string', 'number', 'null'], description: 'Alias of external_customer_id.' },
    interests: { type: ['array', 'null'], items: { type: 'string' }, description: 'Declared interests.' },
    attributes: { type: ['object', 'null'], description: 'Free-form answers.' },
    source_label: { type: ['string', 'null'], description: 'Provenance label.' },
    quiz_version: { type: ['string', 'number', 'null'], description: 'Version of the quiz.' },
    completed_at: { type: ['string', 'null'], description: 'ISO 8601 time the quiz was completed.' },
  },
} as const;
