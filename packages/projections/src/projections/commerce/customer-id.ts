import { nameUuid } from '@holdfast/platform';

// A fixed namespace for customer ids (itself a random v4 uuid, chosen once). Changing it would give
// every customer a new id on the next rebuild, so it never changes.
const CUSTOMER_NAMESPACE = Buffer.from('6f1d3c2a8b7e4f0c9a5d2e1b3c4d5e6f', 'hex');

/**
 * The id of the customer created by event `eventId` of account `accountId`: a name-based (v5-style)
 * UUID from SHA-1, so a replay from offset 0 creates the very same ids (random ids would make every
 * rebuild differ). An event creates at most one customer.
 *
 * @example
 * customerUuid('2b1c…', 'e0f4…'); // '8c3e…-…-5…' (same inputs, same id, every time)
 */
export function customerUuid(accountId: string, eventId: string): string {
  return nameUuid(`${accountId}\u0000${eventId}`, CUSTOMER_NAMESPACE);
}
