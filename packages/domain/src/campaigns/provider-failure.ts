/**
 * How a provider answered one send attempt, as the adapters report it (no addresses, no message text):
 * an HTTP status (SMS APIs), an SMTP reply code, or a failure to get any answer (`outbound`: the guarded
 * client's class, e.g. `timeout`, `connection_failed`, `destination_refused`).
 */
export type ProviderAttempt =
  | { readonly ok: true; readonly status: number | null }
  | { readonly ok: false; readonly kind: 'http'; readonly status: number }
  | { readonly ok: false; readonly kind: 'smtp'; readonly status: number }
  | { readonly ok: false; readonly kind: 'outbound'; readonly failure: string };

/** The failure taxonomy's two kinds that a provider failure can be (a bug is thrown, never recorded). */
export type ProviderFailureKind = 'retriable' | 'permanent';

/** A failed attempt classified: its kind and the short error class recorded on the send. */
export interface ProviderFailure {
  readonly kind: ProviderFailureKind;
  /** e.g. `provider_http_503`, `provider_smtp_550`, `provider_timeout`. */
  readonly errorClass: string;
}

// Answers that cannot succeed however often they are repeated: the destination is refused by policy,
// a redirect is never followed, the TLS of the provider is not what it must be.
const PERMANENT_OUTBOUND = new Set(['destination_refused', 'redirect_refused', 'tls_failed', 'auth_failed']);

/**
 * Sorts a failed provider attempt into the failure taxonomy: HTTP 408, 425, 429 and 5xx are retriable
 * (the provider is busy or away), other 4xx permanent (the request itself is refused: bad credentials,
 * an invalid number); SMTP 4yz replies are transient by definition (RFC 5321, section 4.2.1) and 5yz
 * permanent; no answer at all (timeout, connection or DNS failure) is retriable, except a destination
 * the outbound policy refuses, a refused redirect, a TLS failure or refused credentials.
 *
 * @example
 * classifyProviderFailure({ ok: false, kind: 'http', status: 503 }); // { kind: 'retriable', errorClass: 'provider_http_503' }
 * classifyProviderFailure({ ok: false, kind: 'smtp', status: 550 }); // { kind: 'permanent', errorClass: 'provider_smtp_550' }
 */
export function classifyProviderFailure(a: Exclude<ProviderAttempt, { ok: true }>): ProviderFailure {
  switch (a.kind) {
    case 'http': {
      const retriable = a.status === 408 || a.status === 425 || a.status === 429 || a.status >= 500;
      return { kind: retriable ? 'retriable' : 'permanent', errorClass: `provider_http_${a.status}` };
    }
    case 'smtp': {
      const retriable = a.status >= 400 && a.status < 500;
      return { kind: retriable ? 'retriable' : 'permanent', errorClass: `provider_smtp_${a.status}` };
    }
    case 'outbound':
      return {
        kind: PERMANENT_OUTBOUND.has(a.failure) ? 'permanent' : 'retriable',
        errorClass: `provider_${a.failure}`,
      };
    default: {
      const never: never = a;
      return never;
    }
  }
}

/** What to do after an attempt: stop with a final status, or try again. */
export type SendRetryDecision =
  | { readonly next: 'done'; readonly status: 'sent' }
  | { readonly next: 'done'; readonly status: 'failed'; readonly failure: ProviderFailure }
  | { readonly next: 'done'; readonly status: 'possibly_sent'; readonly failure: ProviderFailure }
  | { readonly next: 'retry'; readonly failure: ProviderFailure };

/**
 * After attempt number `attempt` (1-based) of at most `maxAttempts`: a success is `sent`; a permanent
 * failure or the last allowed attempt is `failed` (the next sending run does not retry a failed send:
 * the customer is planned afresh after the cool-down); a retriable failure before that is retried
 * (the caller waits with backoff first).
 *
 * A timeout is the one answer after which the provider may have the message (the request went out,
 * nothing came back). A provider that is not `resendSafe` (no idempotency key: SMTP, the Twilio-shaped
 * SMS API) is then not asked again: the send is `possibly_sent` (docs/campaigns.md, "At most once").
 *
 * @example
 * decideSendRetry({ ok: false, kind: 'http', status: 503 }, 1, 3); // { next: 'retry', failure: … }
 * decideSendRetry({ ok: false, kind: 'http', status: 503 }, 3, 3); // { next: 'done', status: 'failed', failure: … }
 */
export function decideSendRetry(
  a: ProviderAttempt,
  attempt: number,
  maxAttempts: number,
  resendSafe = true,
): SendRetryDecision {
  if (a.ok) return { next: 'done', status: 'sent' };
  const failure = classifyProviderFailure(a);
  if (!resendSafe && a.kind === 'outbound' && a.failure === 'timeout')
    return { next: 'done', status: 'possibly_sent', failure };
  if (failure.kind === 'permanent' || attempt >= maxAttempts)
    return { next: 'done', status: 'failed', failure };
  return { next: 'retry', failure };
}
