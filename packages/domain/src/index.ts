/**
 * Pure domain rules of Holdfast: no I/O, no clock, no randomness (time comes in as `now`).
 *
 * - `ingest`: request validation (422 bodies in pydantic/FastAPI style) and row classification for
 *   orders, customers, account settings, the pixel collector and the inbound webhooks. The gateway
 *   calls the same functions for the real call and the dry run.
 * - `keys`: what a presented token is, by prefix.
 * - `currency`: euro reference rates (the ECB CSV layout) and the conversion rule of order amounts
 *   into an account's reporting currency.
 *
 * @example
 * const v = validateOrdersRequest(body);
 * if (!v.ok) return reply(422, { detail: v.detail });
 * const { counters, accepted, errors, warnings, batchFailure } = classifyOrders(v.rows, { now });
 */
export * from './ingest/index.js';
export * from './currency/index.js';
export { keyKind } from './keys/key-kind.js';
export type { KeyKind } from './keys/key-kind.js';
export { CAMPAIGN_TYPES, isCampaignType } from './campaigns/campaign-types.js';
export type { CampaignType } from './campaigns/campaign-types.js';
export { DEFAULT_FREQUENCY_CAP, decideSend } from './campaigns/decide-send.js';
export type {
  RecentSend,
  SendCampaign,
  SendChannel,
  SendCustomer,
  SendDecision,
  SendDecisionKind,
  SendSettings,
} from './campaigns/decide-send.js';
export { sendsOnTrigger } from './campaigns/send-trigger.js';
export type { RecomputeTrigger, TriggerSettings } from './campaigns/send-trigger.js';
export {
  composeEmail,
  composeSms,
  ONE_CLICK_POST,
  SMS_OPT_OUT_TEXT,
  TRACKING_HEADER,
} from './campaigns/compose-message.js';
export type { ComposedEmail, MessageText } from './campaigns/compose-message.js';
export { UTM_SOURCE, utmLink } from './campaigns/utm-link.js';
export {
  ATTRIBUTION_PATTERNS,
  attributeOrder,
  attributeOrders,
  DEFAULT_LAST_TOUCH_DAYS,
  isForeignCampaign,
  sendsOfOurs,
  trackingIdInSource,
} from './campaigns/attribution.js';
export type {
  Attribution,
  AttributionMethod,
  AttributionOrder,
  AttributionSend,
  LedgerSend,
} from './campaigns/attribution.js';
export { smsKeyword } from './campaigns/sms-keywords.js';
export type { SmsKeyword } from './campaigns/sms-keywords.js';
export { classifyProviderFailure, decideSendRetry } from './campaigns/provider-failure.js';
export type {
  ProviderAttempt,
  ProviderFailure,
  ProviderFailureKind,
  SendRetryDecision,
} from './campaigns/provider-failure.js';
export {
  ATTRIBUTABLE_STATUSES,
  CAP_COUNTED_STATUSES,
  countsForCap,
  resolveUnconfirmedSend,
  TREATED_ARM_STATUSES,
} from './campaigns/send-status.js';
export type { TreatedSendStatus } from './campaigns/send-status.js';
export {
  CLAIM_PAGE_DEFAULT,
  CLAIM_PAGE_MAX,
  CLAIM_TTL_MS,
  MERCHANT_PROVIDER,
  claimCountsForCap,
  claimExpiresAt,
  claimStatus,
  claimTakesPages,
  confirmOutcome,
  decideClaimMember,
  validateClaimRequest,
  validateConfirmRequest,
} from './campaigns/merchant-send.js';
export type {
  ClaimCandidate,
  ClaimDecision,
  ClaimRequest,
  ClaimRules,
  ClaimState,
} from './campaigns/merchant-send.js';
export * from './commerce/index.js';
export { keptSince } from './retention/retention-horizon.js';
export * from './privacy/index.js';
export {
  DEFAULT_WEBHOOK_EVENT_TYPES,
  WEBHOOK_EVENT_TYPES,
  isWebhookEventType,
  subscriptionEventTypes,
} from './webhooks/webhook-events.js';
export type { WebhookEventType } from './webhooks/webhook-events.js';
export {
  customerChurned,
  liftProven,
  movedIntoLapsed,
  recoveryAttributed,
  syncCompleted,
  webhookBody,
} from './webhooks/outbound-event-data.js';
export type { Occurrence } from './webhooks/outbound-event-data.js';
