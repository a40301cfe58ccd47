export { validateOrdersRequest } from './orders/validate-orders.js';
export { classifyOrders } from './orders/classify-orders.js';
export type {
  OrderCounters,
  OrderRowError,
  OrderRowWarning,
  OrdersClassification,
} from './orders/classify-orders.js';
export { normalizeCurrency, normalizeOrderRow } from './orders/normalize-order-row.js';
export type { OrderRowOutcome } from './orders/normalize-order-row.js';
export type { NormalizedOrder, OrderErrorCode, OrderWarningCode } from './orders/normalized-order.js';
export { naiveTimestampWarning, nextHint } from './orders/next-hint.js';
export { CAMPAIGN_CHANNEL, acquisitionChannel, isLandingUrl } from './orders/acquisition-channel.js';

export { validateCustomersRequest } from './customers/validate-customers.js';
export { classifyCustomers } from './customers/classify-customers.js';
export type {
  CustomerCounters,
  CustomerRowError,
  CustomerRowWarning,
  CustomerWarningCode,
  CustomersClassification,
  NormalizedCustomer,
} from './customers/classify-customers.js';

export { isIanaTimezone, validateAccountSettings } from './account/validate-account-settings.js';

export { validateCollectorRequest } from './pixel/validate-collector-request.js';
export { GRANTED_CONSENT_STATES, filterPixelEvents, isConsentGranted } from './pixel/filter-pixel-events.js';
export { pixelUrlPath } from './pixel/pixel-url-path.js';
export type {
  NormalizedPixelEvent,
  PixelDrop,
  PixelDropCode,
  PixelDropCounts,
} from './pixel/filter-pixel-events.js';

export {
  CUSTOM_API_NO_IDENTITY_DETAIL,
  NOT_AN_OBJECT_DETAIL,
  dedupKeyForCustomApi,
  parseCustomApiEvent,
} from './webhooks/custom-api-event.js';
export type { CustomApiEvent, ParsedWebhook } from './webhooks/custom-api-event.js';
export {
  ZERO_PARTY_NO_IDENTITY_DETAIL,
  dedupKeyForZeroParty,
  parseZeroPartySubmission,
} from './webhooks/zero-party-submission.js';
export type { ZeroPartySubmission } from './webhooks/zero-party-submission.js';
export { canonicalJson, fnv1a64 } from './webhooks/canonical-hash.js';
export {
  DUPLICATE_DIFFERS_WARNING,
  customApiContentKey,
  duplicateWarning,
} from './webhooks/custom-api-duplicate.js';

export {
  MAX_ECHOED_INPUT_CHARS,
  MAX_VALIDATION_ISSUES,
  echoable,
  toValidationIssues,
} from './shared/validation-issue.js';
export { scanJsonText } from './shared/json-text.js';
export { checkWebhookBody } from './webhooks/webhook-limits.js';
export type { Validated, ValidationIssue } from './shared/validation-issue.js';
export { parseTimestamp } from './shared/parse-timestamp.js';
export type { ParsedTimestamp } from './shared/parse-timestamp.js';
export { createPhoneNormalizer, normalizePhone } from './shared/normalize-phone.js';
export type { PhoneNormalizer } from './shared/normalize-phone.js';
export { normalizeAddress, normalizeConsent } from './shared/address-consent.js';
export type { NormalizedAddress, NormalizedConsent } from './shared/address-consent.js';

export { BATCH_RECORD_RETENTION_DAYS, batchRecordsKeptSince } from './batch-retention.js';
