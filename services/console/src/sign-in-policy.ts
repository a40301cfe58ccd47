// When a sign-in attempt is even considered: rate limits per client address and per email address,
// and the lockout of a user after repeated failures. Pure: the routes count, this decides.

export interface SignInLimits {
  /** Failures from one client address within the window before it is refused (429). */
  readonly perIp: number;
  /** Failures for one email address (any client) within the window before it is refused (429). */
  readonly perEmail: number;
  /** Consecutive failures (password or code) after which the user is locked. */
  readonly lockAfter: number;
  /** How long a lock lasts, and the window the counts above cover. */
  readonly windowMs: number;
}

export const DEFAULT_SIGN_IN_LIMITS: SignInLimits = Object.freeze({
  perIp: 30,
  perEmail: 10,
  lockAfter: 5,
  windowMs: 15 * 60 * 1000,
});

export type SignInGate =
  { readonly allowed: true } | { readonly allowed: false; readonly retryAfterS: number };

/**
 * Whether an attempt is looked at: refused while the client address or the email address has used
 * up its failures in the window, or while the user is locked. The answer is the same for a known and
 * an unknown address (no hint that an address has an account).
 *
 * @example
 * signInGate(DEFAULT_SIGN_IN_LIMITS, { ipFailures: 0, emailFailures: 10, lockedUntil: null }, now);
 * // { allowed: false, retryAfterS: 900 }
 */
export function signInGate(
  limits: SignInLimits,
  counts: { readonly ipFailures: number; readonly emailFailures: number; readonly lockedUntil: Date | null },
  now: Date,
): SignInGate {
  const windowS = Math.ceil(limits.windowMs / 1000);
  if (counts.ipFailures >= limits.perIp || counts.emailFailures >= limits.perEmail)
    return { allowed: false, retryAfterS: windowS };
  if (counts.lockedUntil && counts.lockedUntil.getTime() > now.getTime())
    return { allowed: false, retryAfterS: Math.ceil((counts.lockedUntil.getTime() - now.getTime()) / 1000) };
  return { allowed: true };
}

/**
 * After a failure, until when the user is locked: the `lockAfter`-th consecutive failure locks them
 * for the window; earlier ones do not.
 *
 * @example
 * lockAfterFailure(DEFAULT_SIGN_IN_LIMITS, 5, now); // now + 15 min
 */
export function lockAfterFailure(limits: SignInLimits, consecutiveFailures: number, now: Date): Date | null {
  return consecutiveFailures >= limits.lockAfter ? new Date(now.getTime() + limits.windowMs) : null;
}

/** A password the console accepts: 12 to 256 characters (length is what makes it hard to guess). */
export function passwordProblem(password: string): string | null {
  if (password.length < 12) return 'Use at least 12 characters.';
  if (password.length > 256) return 'Use at most 256 characters.';
  return null;
}
