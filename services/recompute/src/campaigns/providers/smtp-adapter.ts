import { lookup } from 'node:dns/promises';
import { isIP } from 'node:net';
import nodemailer from 'nodemailer';
import type SMTPTransport from 'nodemailer/lib/smtp-transport/index.js';
import type { SmtpSettings } from '@holdfast/control-plane';
import { composeEmail, type ProviderAttempt } from '@holdfast/domain';
import { addressRefusal, type OutboundPolicy } from '@holdfast/platform';
import { COPY } from '../campaign-types.js';
import type { CampaignMessage, ProviderAdapter } from './provider-adapter.js';

/** How the SMTP adapter connects; `testMode` is the only way to allow `tls: 'none'`. */
export interface SmtpAdapterOptions {
  readonly policy: OutboundPolicy;
  readonly testMode: boolean;
  /** Connect, greeting and socket inactivity limit (ms). */
  readonly timeoutMs: number;
  /**
   * The whole send, from DNS to the answer to the message (ms; default `smtpSendDeadlineMs(timeoutMs)`).
   * The inactivity limit alone never ends a relay that trickles a byte every few seconds.
   */
  readonly sendDeadlineMs?: number;
  /** Resolves the host (injectable for tests); default dns.lookup with all addresses. */
  readonly resolve?: (host: string) => Promise<readonly { address: string }[]>;
}

const systemResolve = (host: string) => lookup(host, { all: true });

/**
 * The total deadline of one SMTP send: three times the inactivity limit (30 s with the default 10 s),
 * room for a connect, a greeting and a dozen commands answered at an ordinary pace, and no more.
 *
 * @example
 * smtpSendDeadlineMs(10_000); // 30_000
 */
export function smtpSendDeadlineMs(timeoutMs: number): number {
  return 3 * timeoutMs;
}

/** Why an SMTP send was cut off: its total deadline passed (recorded as `timeout`). */
export class SmtpDeadlineError extends Error {
  override readonly name = 'SmtpDeadlineError';
}

/**
 * Email over SMTP with nodemailer. The message is `composeEmail`'s: the call-to-action, an unsubscribe
 * link in the body, `List-Unsubscribe` and `List-Unsubscribe-Post: List-Unsubscribe=One-Click`.
 *
 * The guard of the HTTP client, for SMTP: the host is resolved here and the connection goes to an
 * address the outbound policy allows (public, or allow-listed), with the host name kept for TLS
 * verification (SNI and certificate), so DNS rebinding cannot point it elsewhere. STARTTLS is required
 * by default (`requireTLS`: no upgrade, no message); certificates are always verified (a private CA
 * can be given as `ca`); plain text only when the provider says `tls: 'none'` and the service runs in
 * test mode.
 *
 * Every send has a total deadline (`sendDeadlineMs`): when it passes, the send is aborted and its
 * connection destroyed (nodemailer's `signal`, `socketCloseTimeout: 0`), and the attempt is a
 * `timeout`. A relay that trickles bytes (each within the inactivity limit) cannot hold a send, nor
 * the run's lease, for longer.
 */
export class SmtpAdapter implements ProviderAdapter {
  readonly channel = 'email' as const;
  /** SMTP has no idempotency key: a message repeated after a lost answer is a second message. */
  readonly resendSafe = false;

  constructor(
    readonly provider: string,
    private readonly settings: SmtpSettings,
    private readonly password: string,
    private readonly options: SmtpAdapterOptions,
  ) {}

  async send(m: CampaignMessage): Promise<ProviderAttempt> {
    const deadlineMs = this.options.sendDeadlineMs ?? smtpSendDeadlineMs(this.options.timeoutMs);
    const deadline = new AbortController();
    const timer = setTimeout(
      () => deadline.abort(new SmtpDeadlineError(`send not over within ${deadlineMs} ms`)),
      deadlineMs,
    );
    try {
      return await this.sendWithin(m, deadline.signal);
    } finally {
      clearTimeout(timer);
    }
  }

  private async sendWithin(m: CampaignMessage, signal: AbortSignal): Promise<ProviderAttempt> {
    const s = this.settings;
    if (s.tls === 'none' && !this.options.testMode)
      return { ok: false, kind: 'outbound', failure: 'tls_failed' };
    if (!m.unsubscribeUrl) throw new Error('an email needs its unsubscribe URL');
    let address: string;
    try {
      const found = isIP(s.host)
        ? [{ address: s.host }]
        : await untilAborted((this.options.resolve ?? systemResolve)(s.host), signal);
      const ok = found.find((a) => !addressRefusal(this.options.policy, a.address, s.port));
      if (!ok) return { ok: false, kind: 'outbound', failure: 'destination_refused' };
      address = ok.address;
    } catch {
      if (signal.aborted) return { ok: false, kind: 'outbound', failure: 'timeout' };
      return { ok: false, kind: 'outbound', failure: 'dns_failed' };
    }
    const mail = composeEmail(COPY[m.campaignType], {
      ctaUrl: m.ctaUrl,
      unsubscribeUrl: m.unsubscribeUrl,
      trackingId: m.trackingId,
    });
    const transport = nodemailer.createTransport({
      host: address,
      port: s.port,
      secure: s.tls === 'implicit',
      requireTLS: s.tls === 'starttls',
      ignoreTLS: s.tls === 'none',
      auth: { user: s.user, pass: this.password },
      tls: {
        servername: isIP(s.host) ? undefined : s.host,
        rejectUnauthorized: true,
        minVersion: 'TLSv1.2',
        ...(s.ca ? { ca: [s.ca] } : {}),
      },
      connectionTimeout: this.options.timeoutMs,
      greetingTimeout: this.options.timeoutMs,
      socketTimeout: this.options.timeoutMs,
      // A connection closed at the deadline is destroyed at once, not ended politely.
      socketCloseTimeout: 0,
      disableFileAccess: true,
      disableUrlAccess: true,
    } as SMTPTransport.Options);
    try {
      const info = await transport.sendMail({
        from: s.from,
        to: m.to,
        subject: mail.subject,
        text: mail.text,
        html: mail.html,
        headers: mail.headers,
        messageId: `<${m.trackingId}@holdfast>`,
        // The deadline: nodemailer aborts the send and closes (destroys) its connection.
        signal,
      });
      return { ok: true, status: smtpCode(info.response) };
    } catch (err) {
      if (signal.aborted) return { ok: false, kind: 'outbound', failure: 'timeout' };
      return smtpFailure(err);
    } finally {
      transport.close();
    }
  }
}

/** `p`, or a rejection as soon as `signal` aborts (the lookup itself cannot be cancelled). */
function untilAborted<T>(p: Promise<T>, signal: AbortSignal): Promise<T> {
  if (signal.aborted) return Promise.reject(signal.reason as Error);
  return new Promise<T>((resolve, reject) => {
    const onAbort = () => reject(signal.reason as Error);
    signal.addEventListener('abort', onAbort, { once: true });
    p.then(resolve, reject).finally(() => signal.removeEventListener('abort', onAbort));
  });
}

function smtpCode(response: unknown): number | null {
  const m = typeof response === 'string' ? /^(\d{3})/.exec(response) : null;
  return m ? Number(m[1]) : null;
}

/**
 * A nodemailer error as an attempt: a server reply keeps its code (4yz transient, 5yz permanent);
 * no reply is classed like the HTTP client's failures (TLS, timeout, connection, DNS). The error text
 * may hold addresses and is never kept.
 */
function smtpFailure(err: unknown): ProviderAttempt {
  const e = err as { code?: unknown; responseCode?: unknown };
  if (typeof e.responseCode === 'number' && e.responseCode >= 400)
    return { ok: false, kind: 'smtp', status: e.responseCode };
  switch (e.code) {
    case 'ETLS':
    case 'EREQUIRETLS':
      return { ok: false, kind: 'outbound', failure: 'tls_failed' };
    case 'EAUTH':
    case 'ENOAUTH':
      return { ok: false, kind: 'outbound', failure: 'auth_failed' };
    case 'ETIMEDOUT':
      return { ok: false, kind: 'outbound', failure: 'timeout' };
    case 'EDNS':
      return { ok: false, kind: 'outbound', failure: 'dns_failed' };
    default:
      if (/certificate|self.signed|ssl|tls/i.test(String((err as Error).message)))
        return { ok: false, kind: 'outbound', failure: 'tls_failed' };
      return { ok: false, kind: 'outbound', failure: 'connection_failed' };
  }
}
