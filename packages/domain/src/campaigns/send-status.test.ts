import { describe, expect, it } from 'vitest';
import { decideSendRetry } from './provider-failure.js';
import {
  ATTRIBUTABLE_STATUSES,
  countsForCap,
  resolveUnconfirmedSend,
  TREATED_ARM_STATUSES,
} from './send-status.js';

describe('resolveUnconfirmedSend: a send found claimed but never confirmed', () => {
  it('given SMTP or an SMS API without idempotency key, when found sending, then it is possibly_sent, never re-sent', () => {
    expect(resolveUnconfirmedSend({ resendSafe: false, consentOk: true })).toBe('possibly_sent');
    expect(resolveUnconfirmedSend({ resendSafe: false, consentOk: false })).toBe('possibly_sent');
  });

  it('given a provider that drops repeats with the same key, when found sending, then it is asked again with that key', () => {
    expect(resolveUnconfirmedSend({ resendSafe: true, consentOk: true })).toBe('resend_same_key');
  });

  it('given consent withdrawn since the claim, when found sending, then nothing more is sent', () => {
    expect(resolveUnconfirmedSend({ resendSafe: true, consentOk: false })).toBe('possibly_sent');
  });
});

describe('what a possibly sent message counts as', () => {
  it('given possibly_sent or sending, then it counts for the cap like sent; failed does not', () => {
    for (const s of ['planned', 'sending', 'sent', 'possibly_sent', 'held_out', 'sandbox_simulated'])
      expect(countsForCap(s)).toBe(true);
    for (const s of ['failed', 'capped', 'no_consent', 'suppressed', 'disabled'])
      expect(countsForCap(s)).toBe(false);
  });

  it('given possibly_sent, then orders are attributed to it and it is in the treated arm', () => {
    expect(ATTRIBUTABLE_STATUSES).toEqual(['sent', 'possibly_sent', 'merchant_sent']);
    expect(TREATED_ARM_STATUSES).toContain('possibly_sent');
    expect(TREATED_ARM_STATUSES).toContain('sending');
    expect(TREATED_ARM_STATUSES).not.toContain('held_out');
  });
});

describe('decideSendRetry on a provider without idempotency key', () => {
  const timeout = { ok: false, kind: 'outbound', failure: 'timeout' } as const;
  it('given a timeout (the provider may have it), when not resend-safe, then possibly_sent, no retry', () => {
    expect(decideSendRetry(timeout, 1, 3, false)).toEqual({
      next: 'done',
      status: 'possibly_sent',
      failure: { kind: 'retriable', errorClass: 'provider_timeout' },
    });
  });

  it('given a timeout, when resend-safe, then retried with the same key', () => {
    expect(decideSendRetry(timeout, 1, 3, true)).toMatchObject({ next: 'retry' });
  });

  it('given an answer that says nothing was taken (503, 451, refused connection), when not resend-safe, then retried', () => {
    expect(decideSendRetry({ ok: false, kind: 'http', status: 503 }, 1, 3, false)).toMatchObject({
      next: 'retry',
    });
    expect(decideSendRetry({ ok: false, kind: 'smtp', status: 451 }, 1, 3, false)).toMatchObject({
      next: 'retry',
    });
    expect(
      decideSendRetry({ ok: false, kind: 'outbound', failure: 'connection_failed' }, 1, 3, false),
    ).toMatchObject({ next: 'retry' });
  });
});
