/**
 * Body of PATCH /ingest/account. Whether the name is a real IANA zone (abbreviations such as CST are
 * a 422) is checked by the domain after the schema, because JSON Schema cannot express it.
 */
export const accountSettingsSchema = {
  type: 'object',
  description: 'Account settings.',
  required: ['store_timezone'],
  properties: {
    store_timezone: {
      type: 'string',
      minLength: 1,
      description:
        'IANA timezone name, for example America/Chicago. Abbreviations such as CST give 422. Stored and echoed by GET /ingest/health.',
    },
  },
} as const;

/** PATCH /ingest/account body after validation. */
export interface AccountSettingsInput {
  readonly store_timezone: string;
}
