/**
 * The dispatcher: delivers outbound webhooks (campaign.sent, and the recorded occurrences of the
 * planned events: event-fanout.ts) to the active subscriptions of the account that chose them,
 * signed (hex HMAC-SHA256 of the raw body with the whsec_ secret), retried after 15, 30 and
 * 45 minutes, durably (schema `dispatcher`). How a receiver verifies: docs/webhooks.md.
 *
 * - `startDispatcher(config, deps)`: run in-process; `main.ts` is the process entry.
 * - `signBody` / `verifySignature`: the signature, for receivers written in TypeScript.
 */
export {
  startDispatcher,
  type DispatcherConfig,
  type DispatcherDeps,
  type RunningDispatcher,
} from './start-dispatcher.js';
export type { PollResult } from './delivery-poller.js';
export { loadDispatcherConfig, type DispatcherProcessConfig } from './config.js';
export { DispatcherMetrics } from './metrics.js';
export {
  signBody,
  verifySignature,
  standardSignature,
  standardSigningKey,
  signatureHeaders,
} from './signature.js';
export { RETRY_DELAYS_MS, nextAttemptAt } from './retry-schedule.js';
export { deliveryId } from './delivery-id.js';
export { CAMPAIGN_SENT, campaignSentBody } from './campaign-consumer.js';
