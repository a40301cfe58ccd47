import type { CampaignType, ProviderAttempt } from '@holdfast/domain';
import { OutboundError, type OutboundClient } from '@holdfast/platform';
import type { Channel } from '../campaign-types.js';

/** One message to one customer. `to` is an email address or an E.164 phone (never logged). */
export interface CampaignMessage {
  readonly trackingId: string;
  readonly campaignType: CampaignType;
  readonly to: string;
  readonly ctaUrl: string;
  /** The signed one-click unsubscribe URL (email; null for SMS, which opts out with STOP). */
  readonly unsubscribeUrl: string | null;
}

/**
 * The port every connected provider is reached through: one implementation per kind (SMTP, Twilio's
 * Messages API, the generic JSON endpoint). `send` makes one attempt and reports it as a value (a
 * failure is never thrown; `decideSendRetry` in @holdfast/domain decides what follows). HTTP
 * implementations send `trackingId` as the Idempotency-Key, so a provider that honours it can drop a
 * send repeated after a crash (planned, posted, crashed before noting it).
 */
export interface ProviderAdapter {
  readonly provider: string;
  readonly channel: Channel;
  /**
   * Whether a request repeated with the same tracking id as `Idempotency-Key` is dropped by the
   * provider, so a send whose outcome is unknown may be asked again (docs/campaigns.md, "At most once").
   * SMTP and the Twilio-shaped SMS API: false.
   */
  readonly resendSafe: boolean;
  send(message: CampaignMessage): Promise<ProviderAttempt>;
}

/**
 * POSTs through the guarded outbound client; a 2xx is success, any other status an `http` failure,
 * and no answer (refused destination, redirect, network error, timeout) an `outbound` failure with
 * the client's class (never the socket error: see OutboundFailure).
 */
export async function postThroughGuard(
  client: OutboundClient,
  url: string,
  req: { headers: Record<string, string>; body: string; idempotencyKey: string; timeoutMs: number },
): Promise<ProviderAttempt> {
  try {
    const res = await client.request(url, {
      method: 'POST',
      timeoutMs: req.timeoutMs,
      headers: {
        ...req.headers,
        'idempotency-key': req.idempotencyKey,
        'user-agent': 'holdfast-campaigns/1',
      },
      body: req.body,
    });
    return res.status >= 200 && res.status < 300
      ? { ok: true, status: res.status }
      : { ok: false, kind: 'http', status: res.status };
  } catch (err) {
    if (!(err instanceof OutboundError)) throw err;
    return { ok: false, kind: 'outbound', failure: err.failure };
  }
}
