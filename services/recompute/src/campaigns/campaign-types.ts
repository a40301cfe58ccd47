import type { CampaignType } from '@holdfast/domain';

export type Channel = 'email' | 'sms';

// The audience rules are shared with the gateway's GET /v1/audiences (one definition, in @holdfast/campaign-store).
export { DEFAULT_AUDIENCE_RULES, type AudienceRules } from '@holdfast/campaign-store';

/** What one message says. The call-to-action link is appended by the channel adapter. */
export interface MessageCopy {
  readonly subject: string;
  readonly text: string;
  readonly cta: string;
}

/**
 * Neutral copy per campaign type. No discount code is ever created or mentioned (spec, general rule 9):
 * the service has no coupon library, and an invented code would be honoured by no storefront.
 */
export const COPY: Readonly<Record<CampaignType, MessageCopy>> = {
  win_back: {
    subject: 'We have missed you',
    text: 'It has been a while. See what is new in the shop.',
    cta: 'Visit the shop',
  },
  replenishment: {
    subject: 'Time to stock up?',
    text: 'Going by your last orders, you may be running low soon.',
    cta: 'Reorder now',
  },
  vip: {
    subject: 'Thank you for being one of our best customers',
    text: 'You are one of our most valued customers. Take a first look at what is new.',
    cta: 'Take a look',
  },
};
