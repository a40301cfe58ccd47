// JSON Schemas of the /v1/ read answers (docs/read-api.md), referenced from read-paths.ts.
const nullable = (schema: Record<string, unknown>) => ({ anyOf: [schema, { type: 'null' }] });
const str = { type: 'string' } as const;
const time = { type: 'string', format: 'date-time' } as const;
const num = { type: 'number' } as const;
const money = {
  type: 'object',
  required: ['amount', 'currency'],
  additionalProperties: false,
  properties: { amount: num, currency: { type: 'string', pattern: '^[A-Z]{3}$' } },
} as const;
const cursor = {
  ...nullable({ type: 'string' }),
  description: 'Opaque; pass it as `cursor` for the next page. null on the last page.',
};
const member = {
  type: 'object',
  required: ['customer_id', 'external_id'],
  additionalProperties: false,
  properties: { customer_id: { type: 'string', format: 'uuid' }, external_id: nullable(str) },
} as const;

export const CustomerScores = {
  type: 'object',
  description:
    "The customer's scores of the account's latest recompute. Money in the account's reporting currency. `intervals`: 90% intervals of expected_purchases and lifetime_value (docs/analytics.md, \"Intervals\"); null for the heuristic model, which has no fitted parameters.",
  required: [
    'churn_risk',
    'p_alive',
    'lifecycle_state',
    'expected_purchases',
    'predicted_next_purchase_at',
    'lifetime_value',
    'scored_at',
    'model',
    'intervals',
  ],
  additionalProperties: false,
  properties: {
    churn_risk: { type: 'number', minimum: 0, maximum: 1 },
    p_alive: { type: 'number', minimum: 0, maximum: 1 },
    lifecycle_state: { enum: ['Stable', 'Slowing', 'Overdue', 'Lapsed'] },
    expected_purchases: {
      type: 'object',
      required: ['value', 'horizon_days'],
      additionalProperties: false,
      properties: { value: num, horizon_days: { type: 'integer', minimum: 1 } },
    },
    predicted_next_purchase_at: nullable(time),
    lifetime_value: money,
    scored_at: time,
    model: { enum: ['bgnbd-gg', 'pareto-nbd-gg', 'heuristic'] },
    intervals: nullable({
      type: 'object',
      required: ['level', 'expected_purchases', 'lifetime_value'],
      additionalProperties: false,
      properties: {
        level: num,
        expected_purchases: {
          type: 'object',
          required: ['low', 'high'],
          additionalProperties: false,
          properties: { low: num, high: num },
        },
        lifetime_value: {
          type: 'object',
          required: ['low', 'high', 'currency'],
          additionalProperties: false,
          properties: { low: num, high: num, currency: { type: 'string', pattern: '^[A-Z]{3}$' } },
        },
      },
    }),
  },
} as const;

export const Customer = {
  type: 'object',
  required: [
    'customer_id',
    'external_id',
    'email',
    'phone',
    'name',
    'address',
    'consent',
    'subscription',
    'created_at',
    'updated_at',
    'scores',
  ],
  additionalProperties: false,
  properties: {
    customer_id: { type: 'string', format: 'uuid' },
    external_id: nullable(str),
    email: nullable(str),
    phone: nullable(str),
    name: nullable(str),
    address: nullable({
      type: 'object',
      required: ['street', 'city', 'state', 'zip', 'country'],
      additionalProperties: false,
      properties: {
        street: nullable(str),
        city: nullable(str),
        state: nullable(str),
        zip: nullable(str),
        country: nullable(str),
      },
    }),
    consent: {
      type: 'object',
      required: ['marketing_email', 'sms', 'suppressed', 'bounced'],
      additionalProperties: false,
      properties: {
        marketing_email: { type: 'boolean' },
        sms: { type: 'boolean' },
        suppressed: { type: 'boolean' },
        bounced: { type: 'boolean' },
      },
    },
    subscription: {
      type: 'object',
      required: ['status', 'started_at'],
      additionalProperties: false,
      properties: {
        status: nullable({ enum: ['active', 'paused', 'cancelled'] }),
        started_at: nullable(time),
      },
    },
    created_at: time,
    updated_at: { ...time, description: 'The later of the profile change and the scores.' },
    scores: nullable({ $ref: '#/components/schemas/CustomerScores' }),
  },
} as const;

export const CustomerPage = {
  type: 'object',
  required: ['customers', 'next_cursor'],
  additionalProperties: false,
  properties: {
    customers: { type: 'array', maxItems: 5000, items: { $ref: '#/components/schemas/Customer' } },
    next_cursor: cursor,
  },
} as const;

export const HoldoutPage = {
  type: 'object',
  required: ['members', 'next_cursor', 'scored_at'],
  additionalProperties: false,
  properties: {
    members: { type: 'array', maxItems: 5000, items: member },
    next_cursor: cursor,
    scored_at: nullable(time),
  },
} as const;

export const AudiencePage = {
  type: 'object',
  required: ['campaign_type', 'members', 'next_cursor', 'scored_at'],
  additionalProperties: false,
  properties: {
    campaign_type: { enum: ['win_back', 'replenishment', 'vip'] },
    members: { type: 'array', maxItems: 5000, items: member },
    next_cursor: cursor,
    scored_at: nullable(time),
  },
} as const;

export const LiftReport = {
  type: 'object',
  required: [
    'campaign_type',
    'period_start',
    'period_end',
    'treated_customers',
    'holdout_customers',
    'lift',
    'interval',
    'p_value',
    'significant',
    'mde',
    'incremental_revenue',
    'billable_revenue',
    'settlement',
    'computed_at',
  ],
  additionalProperties: false,
  properties: {
    campaign_type: str,
    period_start: time,
    period_end: time,
    treated_customers: { type: 'integer' },
    holdout_customers: { type: 'integer' },
    lift: nullable(num),
    interval: nullable({
      type: 'object',
      required: ['low', 'high'],
      additionalProperties: false,
      properties: { low: nullable(num), high: nullable(num) },
    }),
    p_value: nullable(num),
    significant: { type: 'boolean' },
    mde: nullable(num),
    incremental_revenue: nullable(num),
    billable_revenue: money,
    settlement: {
      type: 'object',
      required: ['status', 'settles_at', 'settled_at', 'final_billable_revenue'],
      additionalProperties: false,
      properties: {
        status: { enum: ['provisional', 'final'] },
        settles_at: nullable(time),
        settled_at: nullable(time),
        final_billable_revenue: nullable(num),
      },
    },
    computed_at: time,
  },
} as const;

export const LiftReports = {
  type: 'object',
  required: ['reports'],
  additionalProperties: false,
  properties: { reports: { type: 'array', items: { $ref: '#/components/schemas/LiftReport' } } },
} as const;
