/**
 * The outbound events a webhook subscription can choose (docs/webhooks.md): `campaign.sent` (the
 * spec's), and the planned ones of issue 24. A subscription created without a choice gets
 * `campaign.sent` only, as every subscription had before it could choose.
 */
export const WEBHOOK_EVENT_TYPES = [
  'campaign.sent',
  'customer.churned',
  'recovery.attributed',
  'lift.proven',
  'sync.completed',
] as const;

export type WebhookEventType = (typeof WEBHOOK_EVENT_TYPES)[number];

/** What a subscription gets when it names no event types. */
export const DEFAULT_WEBHOOK_EVENT_TYPES: readonly WebhookEventType[] = ['campaign.sent'];

export function isWebhookEventType(v: unknown): v is WebhookEventType {
  return typeof v === 'string' && (WEBHOOK_EVENT_TYPES as readonly string[]).includes(v);
}

/**
 * The event types a subscription asked for, deduplicated in the canonical order; null when the list
 * is empty or names an unknown type (the caller answers 422).
 *
 * @example
 * subscriptionEventTypes(['sync.completed', 'campaign.sent']); // ['campaign.sent', 'sync.completed']
 * subscriptionEventTypes(undefined); // ['campaign.sent']
 */
export function subscriptionEventTypes(requested: readonly unknown[] | undefined): WebhookEventType[] | null {
  if (requested === undefined) return [...DEFAULT_WEBHOOK_EVENT_TYPES];
  if (!requested.length || !requested.every(isWebhookEventType)) return null;
  return WEBHOOK_EVENT_TYPES.filter((t) => requested.includes(t));
}
