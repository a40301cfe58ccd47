/**
 * The states of a treated send on its ledger row and what each one counts as (docs/campaigns.md,
 * "At most once"). A send moves `planned` → `sending` (claimed: committed before the provider is
 * called) → `sent` | `failed` | `possibly_sent`.
 *
 * `possibly_sent` is a send that may have been handed to the provider but was never confirmed (the
 * process died, or the write recording it failed, between the hand-over and the record; or the
 * provider did not answer), on a provider that cannot be asked to drop a repeat (SMTP, an SMS API
 * without an idempotency key). It is never sent again: a re-send risks a duplicate, a skipped one
 * loses one message.
 */
export type TreatedSendStatus = 'planned' | 'sending' | 'sent' | 'failed' | 'possibly_sent';

/**
 * Decisions that count as a message for the frequency cap and the 30-day cool-down of a type: the
 * holdout's "would have been sent" and a sandbox's simulated send count, and so does a send claimed
 * or possibly handed over (treated as sent). A failed send does not.
 */
export const CAP_COUNTED_STATUSES = Object.freeze([
  'planned',
  'sending',
  'sent',
  'possibly_sent',
  'held_out',
  'sandbox_simulated',
  'merchant_sent',
] as const);

/**
 * Sends an order can be attributed to (exact or last touch): sent, possibly sent (as sent), and a
 * merchant's own send it claimed and confirmed (`merchant_sent`, POST /v1/sends).
 */
export const ATTRIBUTABLE_STATUSES = Object.freeze(['sent', 'possibly_sent', 'merchant_sent'] as const);

/**
 * The treated arm of the lift report, intent to treat: every selected non-holdout decision, the
 * members of a merchant's confirmed claim (`merchant_sent`) included.
 */
export const TREATED_ARM_STATUSES = Object.freeze([
  'planned',
  'sending',
  'sent',
  'possibly_sent',
  'failed',
  'sandbox_simulated',
  'merchant_sent',
] as const);

/** Whether a decision of this status counts as a message for the cap and the cool-down. */
export function countsForCap(status: string): boolean {
  return (CAP_COUNTED_STATUSES as readonly string[]).includes(status);
}

/**
 * What to do with a send found `sending` at the start of a step: it was claimed by an earlier step
 * that never recorded the outcome, so the provider may or may not have it. A provider that drops a
 * repeated request with the same idempotency key (`resendSafe`: the generic JSON endpoint, which gets
 * the tracking id as `Idempotency-Key`) is asked again with the same key, unless the customer has
 * withdrawn consent since (then nothing more is sent); any other provider (SMTP, the Twilio-shaped
 * SMS API) is never asked again: the send becomes `possibly_sent`.
 *
 * @example
 * resolveUnconfirmedSend({ resendSafe: false, consentOk: true }); // 'possibly_sent'
 * resolveUnconfirmedSend({ resendSafe: true, consentOk: true });  // 'resend_same_key'
 */
export function resolveUnconfirmedSend(s: {
  readonly resendSafe: boolean;
  readonly consentOk: boolean;
}): 'resend_same_key' | 'possibly_sent' {
  return s.resendSafe && s.consentOk ? 'resend_same_key' : 'possibly_sent';
}
