import { SecretUnreadableError } from '@holdfast/secrets';

/**
 * Why a subscription must be quarantined after `err` was thrown while preparing its deliveries, or
 * null when the error is not the subscription's own (PostgreSQL away, a bug): that one fails the poll
 * as before and the next poll retries. Only deterministic, per-subscription errors quarantine, ones no
 * retry can fix: a signing secret that cannot be opened (sealed under a master key this dispatcher
 * lacks, or tampered with).
 */
export function quarantineReason(err: unknown): string | null {
  if (err instanceof SecretUnreadableError) return `secret_unreadable: ${err.message}`;
  return null;
}

/** What a parked delivery of a quarantined subscription records as its `last_error`. */
export function parkedError(reason: string): string {
  return `subscription_quarantined: ${reason.split(':', 1)[0]}`;
}
