import { describe, expect, it } from 'vitest';
import { accountSettingsSchema } from './account-settings.schema.js';
import { collectorRequestSchema } from './collector-request.schema.js';
import { customersRequestSchema } from './customers-request.schema.js';
import { ordersRequestSchema } from './orders-request.schema.js';
import { httpValidators } from './validators.js';
import { customApiEventSchema, zeroPartySubmissionSchema } from './webhook-bodies.schema.js';

/** Paths of every schema property that lacks a description (they feed /v1/openapi.json). */
function undescribed(schema: unknown, path = '#'): string[] {
  if (typeof schema !== 'object' || schema === null) return [];
  const s = schema as { properties?: Record<string, unknown>; items?: unknown; description?: unknown };
  const own = s.properties
    ? Object.entries(s.properties).flatMap(([k, v]) => [
        ...((v as { description?: unknown }).description ? [] : [`${path}/${k}`]),
        ...undescribed(v, `${path}/${k}`),
      ])
    : [];
  return [...own, ...(s.items ? undescribed(s.items, `${path}[]`) : [])];
}

describe('HTTP request schemas', () => {
  it.each([
    ['orders', ordersRequestSchema],
    ['customers', customersRequestSchema],
    ['account settings', accountSettingsSchema],
    ['collector', collectorRequestSchema],
    ['custom-api event', customApiEventSchema],
    ['zero-party submission', zeroPartySubmissionSchema],
  ])('given the %s schema, when inspected, then every property carries a description', (_name, schema) => {
    expect(schema.description).toBeTruthy();
    expect(undescribed(schema)).toEqual([]);
  });

  it.each([
    [
      'ordersRequest',
      {
        orders: [
          { order_id: 'A', customer_id: 'C', order_date: '2024-01-02', order_amount: 1, product_name: 'P' },
        ],
      },
    ],
    ['customersRequest', { customers: [{ email: 'a@b.co' }] }],
    ['accountSettings', { store_timezone: 'UTC' }],
    [
      'collectorRequest',
      {
        key: 'pk_x',
        events: [
          {
            event_id: '0b6c2f0e-9a1f-4f53-9a43-6b1f3f3c2d10',
            event_type: 'search',
            occurred_at: '2024-01-02T00:00:00Z',
            anonymous_id: 'a',
          },
        ],
      },
    ],
  ] as const)('given a minimal valid %s body, when validated, then it passes', (name, body) => {
    expect(httpValidators[name](body)).toBe(true);
  });
});
