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

/** The fetch adapters post with (injectable for tests). */
export type FetchLike = typeof fetch;

/** POSTs JSON; a 2xx is success, anything else (status, network error, timeout) a failure. */
export async function postJson(
  fetchFn: FetchLike,
  url: string,
  body: unknown,
  { idempotencyKey, timeoutMs }: { idempotencyKey: string; timeoutMs: number },
): Promise<ProviderResult> {
  try {
    const res = await fetchFn(url, {
      method: 'POST',
      redirect: 'manual',
      signal: AbortSignal.timeout(timeoutMs),
      headers: {
        'content-type': 'application/json',
        'idempotency-key': idempotencyKey,
        'user-agent': 'holdfast-campaigns/1',
      },
      body: JSON.stringify(body),
    });
    await res.arrayBuffer().catch(() => undefined);
    const ok = res.status >= 200 && res.status < 300;
    return { ok, statusCode: res.status, error: ok ? null : `provider_http_${res.status}` };
  } catch (err) {
    const e = err as Error & { cause?: { code?: string } };
    const timeout = e.name === 'TimeoutError' || e.name === 'AbortError';
    return {
      ok: false,
      statusCode: null,
      error: timeout
        ? `provider_timeout_${timeoutMs}ms`
        : `provider_network_error: ${e.cause?.code ?? e.message}`,
    };
  }
}
