import { OutboundError, type OutboundClient } from '@holdfast/platform';
import type { CampaignType, Channel } from '../campaign-types.js';

/** One message to one customer. `to` is an email address or an E.164 phone (never logged). */
export interface CampaignMessage {
  readonly trackingId: string;
  readonly campaignType: CampaignType;
  readonly to: string;
  readonly ctaUrl: string;
}

/** What the provider answered. A failure is recorded on the send, never thrown. */
export interface ProviderResult {
  readonly ok: boolean;
  readonly statusCode: number | null;
  readonly error: string | null;
}

/**
 * The port every connected provider is reached through: one implementation per channel (email, SMS),
 * configured with the provider's name and endpoint (control.providers). Implementations must be
 * idempotent on `trackingId` from the provider's side: they send it as the Idempotency-Key, so a send
 * repeated after a crash (planned, posted, crashed before noting it) can be dropped by the provider.
 */
export interface ProviderAdapter {
  readonly provider: string;
  readonly channel: Channel;
  send(message: CampaignMessage): Promise<ProviderResult>;
}

/**
 * POSTs JSON through the guarded outbound client; a 2xx is success, anything else (status, refused
 * destination, redirect, network error, timeout) a failure, recorded as `provider_http_<status>` or
 * `provider_<failure class>` (never the socket error: see OutboundFailure).
 */
export async function postJson(
  client: OutboundClient,
  url: string,
  body: unknown,
  { idempotencyKey, timeoutMs }: { idempotencyKey: string; timeoutMs: number },
): Promise<ProviderResult> {
  try {
    const res = await client.request(url, {
      method: 'POST',
      timeoutMs,
      headers: {
        'content-type': 'application/json',
        'idempotency-key': idempotencyKey,
        'user-agent': 'holdfast-campaigns/1',
      },
      body: JSON.stringify(body),
    });
    const ok = res.status >= 200 && res.status < 300;
    return { ok, statusCode: res.status, error: ok ? null : `provider_http_${res.status}` };
  } catch (err) {
    if (!(err instanceof OutboundError)) throw err;
    return { ok: false, statusCode: err.status, error: `provider_${err.failure}` };
  }
}
