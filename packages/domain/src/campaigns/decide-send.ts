/**
 * Whether one customer is sent one campaign now, and if not, why: the decision recorded per customer
 * and campaign in the send ledger (docs/campaigns.md). Pure: the clock, the account's settings and the
 * customer's recent decisions come in as arguments.
 */

/** What is decided for a customer who matched a campaign type's rule. */
export type SendDecision =
  | { readonly kind: 'disabled' }
  | { readonly kind: 'cooling_down' }
  | { readonly kind: 'no_consent' }
  | { readonly kind: 'suppressed' }
  | { readonly kind: 'capped' }
  | { readonly kind: 'held_out'; readonly channel: SendChannel }
  | { readonly kind: 'sandbox_simulated'; readonly channel: SendChannel }
  | { readonly kind: 'send'; readonly channel: SendChannel };

export type SendDecisionKind = SendDecision['kind'];

export type SendChannel = 'email' | 'sms';

/** The customer's contact state, read from the read models at decision time. */
export interface SendCustomer {
  readonly isHoldout: boolean;
  readonly hasEmail: boolean;
  readonly emailConsent: boolean;
  /** consent_suppressed or consent_bounced. */
  readonly emailSuppressed: boolean;
  readonly hasPhone: boolean;
  readonly smsConsent: boolean;
}

/** The campaign the customer matched. */
export interface SendCampaign {
  readonly type: string;
}

/** The account's campaign settings. */
export interface SendSettings {
  /** Campaign types the operator enabled (all are off by default). */
  readonly enabledTypes: ReadonlySet<string>;
  /** At most `messages` per customer per `days`, across all types (default 1 per 7 days). */
  readonly frequencyCap: { readonly messages: number; readonly days: number };
  /** The same type is not decided again within this many days of a counted decision (default 30). */
  readonly cooldownDays: number;
  /** Channels with a connected provider (a sandbox simulates both). */
  readonly channels: ReadonlySet<SendChannel>;
  /** Sandbox account (tk_test_ keys): messages are simulated, never sent. */
  readonly sandbox: boolean;
}

/**
 * A recent decision of the customer that counts as a message: sent, planned, sandbox_simulated, and
 * held_out (a holdout customer's "would have been sent" counts too, so that the cap and the cool-down
 * treat both arms alike and the holdout stays a fair comparison group).
 */
export interface RecentSend {
  readonly campaignType: string;
  readonly at: Date;
}

/** Defaults of {@link SendSettings} that are not per account. */
export const DEFAULT_FREQUENCY_CAP = Object.freeze({ messages: 1, days: 7 });

const DAY_MS = 86_400_000;

/**
 * The decision for one customer who matched `campaign`, in this order (each step applies to both arms,
 * so the holdout rows are exactly the customers who would have been sent):
 *
 * 1. `disabled`: the account has not enabled the type;
 * 2. `cooling_down`: the same type was decided for the customer within `cooldownDays` (not recorded
 *    again: the earlier row stands);
 * 3. reach: email when the email channel is available and the customer has an address, consent and is
 *    neither suppressed nor bounced; else SMS when available with a phone and SMS consent. Nobody
 *    reachable: `suppressed` when email consent exists but the address is suppressed or bounced, else
 *    `no_consent`;
 * 4. `capped`: `frequencyCap.messages` or more counted decisions of any type within `frequencyCap.days`;
 * 5. `held_out`: universal holdout;
 * 6. `sandbox_simulated`: sandbox account;
 * 7. `send`.
 *
 * @example
 * decideSend(customer, { type: 'win_back' }, settings, recent, now).kind; // 'send' | 'capped' | ...
 */
export function decideSend(
  customer: SendCustomer,
  campaign: SendCampaign,
  settings: SendSettings,
  recent: readonly RecentSend[],
  now: Date,
): SendDecision {
  if (!settings.enabledTypes.has(campaign.type)) return { kind: 'disabled' };
  const t = now.getTime();
  const within = (s: RecentSend, days: number): boolean =>
    s.at.getTime() > t - days * DAY_MS && s.at.getTime() <= t;
  if (recent.some((s) => s.campaignType === campaign.type && within(s, settings.cooldownDays)))
    return { kind: 'cooling_down' };
  const available = (c: SendChannel): boolean => settings.sandbox || settings.channels.has(c);
  let channel: SendChannel | null = null;
  if (available('email') && customer.hasEmail && customer.emailConsent && !customer.emailSuppressed)
    channel = 'email';
  else if (available('sms') && customer.hasPhone && customer.smsConsent) channel = 'sms';
  if (channel === null) {
    const suppressed =
      available('email') && customer.hasEmail && customer.emailConsent && customer.emailSuppressed;
    return { kind: suppressed ? 'suppressed' : 'no_consent' };
  }
  const cap = settings.frequencyCap;
  if (recent.filter((s) => within(s, cap.days)).length >= cap.messages) return { kind: 'capped' };
  if (customer.isHoldout) return { kind: 'held_out', channel };
  if (settings.sandbox) return { kind: 'sandbox_simulated', channel };
  return { kind: 'send', channel };
}
