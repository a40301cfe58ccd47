/** Outbound webhook events and the deliveries' listing, redelivery and quarantine. */
export { type OutboundEvent, outboundEventId, recordOutboundEvents } from './outbound-events.js';
export {
  type DeliveryAttemptListing,
  type DeliveryListing,
  listDeliveries,
  listQuarantined,
  type QuarantineListing,
  redeliver,
  type SubscriptionScope,
  unquarantineSubscription,
} from './webhook-deliveries.js';
