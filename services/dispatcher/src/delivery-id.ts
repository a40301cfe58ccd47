import { createHash } from 'node:crypto';

/**
 * The X-Service-Delivery id of the delivery of one event to one subscription: a name-based UUID of
 * (subscription id, tracking id). Deterministic, so a CampaignSent record appended twice (a recompute
 * that crashed after appending, before noting it) still gives one delivery, and the id is the same on
 * every retry: receivers deduplicate on it.
 */
export function deliveryId(subscriptionId: string, sourceId: string): string {
  const b = createHash('sha1').update(`holdfast.delivery\u0000${subscriptionId}\u0000${sourceId}`).digest();
  b[6] = (b[6]! & 0x0f) | 0x50;
  b[8] = (b[8]! & 0x3f) | 0x80;
  const h = b.subarray(0, 16).toString('hex');
  return `${h.slice(0, 8)}-${h.slice(8, 12)}-${h.slice(12, 16)}-${h.slice(16, 20)}-${h.slice(20)}`;
}
