import {
  subscriptionEventTypes,
  WEBHOOK_EVENT_TYPES,
  type ValidationIssue,
  type WebhookEventType,
} from '@holdfast/domain';
import { checkOutboundUrl, type OutboundPolicy } from '@holdfast/platform';
import { parseIntParam } from '../http/query.js';
import { ValidationFailedError } from '../http/validation-failed.js';

/** A subscription to create (POST /v1/webhooks). */
export interface NewWebhook {
  readonly url: string;
  readonly eventTypes: WebhookEventType[];
}

/** URLs longer than this are refused (no receiver needs more; the row and every log stay small). */
export const MAX_WEBHOOK_URL_LENGTH = 2048;
/** The grace window of a rotation: default 24 h (as `holdfast webhooks rotate-secret`), at most 7 days. */
export const ROTATION_GRACE = Object.freeze({ fallback: 86_400, min: 0, max: 7 * 86_400 });
/** Deliveries per page of GET /v1/webhooks/{id}/deliveries (as `holdfast webhooks deliveries`). */
export const DELIVERY_LIMITS = Object.freeze({ fallback: 50, min: 1, max: 500 });
const DELIVERY_STATUSES = ['pending', 'delivered', 'failed', 'cancelled'] as const;

const isObject = (v: unknown): v is Record<string, unknown> =>
  typeof v === 'object' && v !== null && !Array.isArray(v);

function bodyObject(body: unknown, required: boolean): Record<string, unknown> {
  if (body === undefined && !required) return {};
  if (isObject(body)) return body;
  throw new ValidationFailedError([
    { type: 'model_attributes_type', loc: ['body'], msg: 'Input should be a valid dictionary', input: body },
  ]);
}

/**
 * The body of POST /v1/webhooks: `url` (required; a destination the dispatcher would deliver to under
 * `policy`: public https unless the deployment opens local receivers) and `event_types` (optional,
 * default `["campaign.sent"]`; a non-empty list of the five event types). Every problem is one entry
 * of one 422.
 *
 * @example
 * parseNewWebhook({ url: 'https://shop.example/hooks', event_types: ['customer.churned'] }, policy);
 */
export function parseNewWebhook(body: unknown, policy: OutboundPolicy): NewWebhook {
  const b = bodyObject(body, true);
  const issues: ValidationIssue[] = [];
  const url = b.url;
  if (typeof url !== 'string')
    issues.push({
      type: url === undefined ? 'missing' : 'string_type',
      loc: ['body', 'url'],
      msg: url === undefined ? 'Field required' : 'Input should be a valid string',
      input: url,
    });
  else if (url.length > MAX_WEBHOOK_URL_LENGTH)
    issues.push({
      type: 'string_too_long',
      loc: ['body', 'url'],
      msg: `String should have at most ${MAX_WEBHOOK_URL_LENGTH} characters`,
      ctx: { max_length: MAX_WEBHOOK_URL_LENGTH },
    });
  else {
    const problem = checkOutboundUrl(url, policy);
    if (problem)
      issues.push({
        type: 'url_refused',
        loc: ['body', 'url'],
        msg: `Refused: ${problem}. Deliveries go to public https URLs only.`,
        input: url,
      });
  }
  const raw = b.event_types;
  const eventTypes =
    raw === undefined
      ? subscriptionEventTypes(undefined)
      : Array.isArray(raw)
        ? subscriptionEventTypes(raw)
        : null;
  if (eventTypes === null)
    issues.push({
      type: 'event_types',
      loc: ['body', 'event_types'],
      msg: `Input should be a non-empty list of ${WEBHOOK_EVENT_TYPES.map((t) => `'${t}'`).join(', ')}`,
      input: raw,
    });
  if (issues.length) throw new ValidationFailedError(issues);
  return { url: url as string, eventTypes: eventTypes! };
}

/**
 * The body of POST /v1/webhooks/{id}/rotate-secret: optional `grace_seconds` (0 to 7 days, default
 * 24 h): how long the old secret keeps signing beside the new one.
 */
export function parseRotation(body: unknown): { graceSeconds: number } {
  const b = bodyObject(body, false);
  const g = b.grace_seconds;
  if (g === undefined) return { graceSeconds: ROTATION_GRACE.fallback };
  if (typeof g !== 'number' || !Number.isInteger(g) || g < ROTATION_GRACE.min || g > ROTATION_GRACE.max)
    throw new ValidationFailedError([
      {
        type: 'grace_seconds',
        loc: ['body', 'grace_seconds'],
        msg: `Input should be an integer from ${ROTATION_GRACE.min} to ${ROTATION_GRACE.max}`,
        input: g,
      },
    ]);
  return { graceSeconds: g };
}

/** The query of GET /v1/webhooks/{id}/deliveries: optional `status`, `limit` (1 to 500, default 50). */
export function parseDeliveryQuery(query: Readonly<Record<string, unknown>>): {
  status: (typeof DELIVERY_STATUSES)[number] | undefined;
  limit: number;
} {
  const s = query.status;
  if (s !== undefined && !(typeof s === 'string' && (DELIVERY_STATUSES as readonly string[]).includes(s)))
    throw new ValidationFailedError([
      {
        type: 'enum',
        loc: ['query', 'status'],
        msg: "Input should be 'pending', 'delivered', 'failed' or 'cancelled'",
        input: s,
      },
    ]);
  return {
    status: s as (typeof DELIVERY_STATUSES)[number] | undefined,
    limit: parseIntParam(query, 'limit', DELIVERY_LIMITS),
  };
}

const UUID = /^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$/i;

/** Whether a path id can name a subscription or delivery at all (anything else is a 404 at once). */
export function isId(v: string): boolean {
  return UUID.test(v);
}
