import { OutboundError, type OutboundClient } from '@holdfast/platform';
import { signatureHeaders } from './signature.js';

/** One signed POST and what came of it (never throws). */
export interface PostResult {
  readonly statusCode: number | null;
  /**
   * `http_<status>` or the guarded client's failure class (`timeout`, `connection_failed`,
   * `destination_refused`, `redirect_refused`, ...): never the underlying socket error, so the
   * stored attempt log tells a merchant what to fix without mapping anyone's network.
   */
  readonly error: string | null;
  readonly succeeded: boolean;
  readonly durationMs: number;
}

/**
 * POSTs `body` to `url` through the guarded outbound client with the spec's headers: X-Service-Event,
 * X-Service-Delivery (the stable delivery id) and X-Service-Signature (hex HMAC-SHA256 of the raw body
 * with the current secret), plus the Standard Webhooks headers (webhook-id, webhook-timestamp,
 * webhook-signature with one signature per secret). A 2xx is a success; any other status, a refused
 * destination, a redirect, a network error or no answer within `timeoutMs` is a failure.
 */
export async function postSigned(
  client: OutboundClient,
  req: {
    url: string;
    /** Signing secrets, newest first. */
    secrets: readonly string[];
    event: string;
    deliveryId: string;
    body: string;
    timeoutMs: number;
    /** The webhook-timestamp; default the system clock (receivers compare it with theirs). */
    at?: Date;
  },
): Promise<PostResult> {
  const started = performance.now();
  try {
    const res = await client.request(req.url, {
      method: 'POST',
      timeoutMs: req.timeoutMs,
      headers: {
        'content-type': 'application/json',
        'user-agent': 'holdfast-webhooks/1',
        'x-service-event': req.event,
        'x-service-delivery': req.deliveryId,
        ...signatureHeaders(req.secrets, req.deliveryId, req.body, req.at ?? new Date()),
      },
      body: req.body,
    });
    const ok = res.status >= 200 && res.status < 300;
    return {
      statusCode: res.status,
      error: ok ? null : `http_${res.status}`,
      succeeded: ok,
      durationMs: performance.now() - started,
    };
  } catch (err) {
    if (!(err instanceof OutboundError)) throw err;
    return {
      statusCode: err.status,
      error: err.failure,
      succeeded: false,
      durationMs: performance.now() - started,
    };
  }
}
