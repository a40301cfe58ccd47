/**
 * Campaigns: audiences from scores and consent, sends through each connected provider's adapter,
 * CampaignSent records on holdfast.campaigns, and the ledger (analytics.campaign_assignments) that makes
 * sends idempotent and gives the lift report its holdout. Rules and reasoning: docs/analytics.md, "Campaign audiences".
 */
export {
  createCampaignStep,
  runCampaignStep,
  type CampaignStepConfig,
  type CampaignStepDeps,
  type CampaignStepOptions,
  type CampaignStepResult,
  type CampaignTask,
} from './campaign-step.js';
export { COPY, DEFAULT_AUDIENCE_RULES, type AudienceRules, type Channel } from './campaign-types.js';
export { UTM_SOURCE, buildCtaUrl } from './cta-url.js';
export { SANDBOX_PROVIDER, planAudiences, type PlanInput, type PlanResult } from './audience.js';
export { loadCampaignSettings, type AccountCampaignSettings } from './campaign-settings.js';
export { campaignSentEventId, campaignSentRecord } from './campaign-events.js';
export {
  JsonAdapter,
  SmtpAdapter,
  TwilioAdapter,
  adapterFor,
  type AdapterEnv,
  type CampaignMessage,
  type ProviderAdapter,
} from './providers/index.js';
export { refreshFunnelCounts } from './funnel-counts.js';
