import { nameUuid } from '@holdfast/platform';

/**
 * The X-Service-Delivery id of the delivery of one event to one subscription: a name-based UUID of
 * (subscription id, tracking id). Deterministic, so a CampaignSent record appended twice (a recompute
 * that crashed after appending, before noting it) still gives one delivery, and the id is the same on
 * every retry: receivers deduplicate on it.
 */
export function deliveryId(subscriptionId: string, sourceId: string): string {
  return nameUuid(`holdfast.delivery\u0000${subscriptionId}\u0000${sourceId}`);
}
