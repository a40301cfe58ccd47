import { signBody } from './signature.js';

/** The fetch the dispatcher posts with (injectable for tests). */
export type FetchLike = typeof fetch;

/** One signed POST and what came of it (never throws). */
export interface PostResult {
  readonly statusCode: number | null;
  readonly error: string | null;
  readonly succeeded: boolean;
  readonly durationMs: number;
}

/**
 * POSTs `body` to `url` with the spec's headers: X-Service-Event, X-Service-Delivery (the stable
 * delivery id) and X-Service-Signature (hex HMAC-SHA256 of the raw body). A 2xx is a success; any other
 * status, a network error or no answer within `timeoutMs` is a failure. Redirects are not followed
 * (a 3xx is a failure): the receiver's registered URL is the only address that gets the payload.
 */
export async function postSigned(
  fetchFn: FetchLike,
  req: { url: string; secret: string; event: string; deliveryId: string; body: string; timeoutMs: number },
): Promise<PostResult> {
  const started = performance.now();
  try {
    const res = await fetchFn(req.url, {
      method: 'POST',
      redirect: 'manual',
      signal: AbortSignal.timeout(req.timeoutMs),
      headers: {
        'content-type': 'application/json',
        'user-agent': 'holdfast-webhooks/1',
        'x-service-event': req.event,
        'x-service-delivery': req.deliveryId,
        'x-service-signature': signBody(req.secret, req.body),
      },
      body: req.body,
    });
    // Drain the body so the connection is released; its content does not matter.
    await res.arrayBuffer().catch(() => undefined);
    const ok = res.status >= 200 && res.status < 300;
    return {
      statusCode: res.status,
      error: ok ? null : `http_${res.status}`,
      succeeded: ok,
      durationMs: performance.now() - started,
    };
  } catch (err) {
    const e = err as Error & { cause?: { code?: string } };
    const error =
      e.name === 'TimeoutError' || e.name === 'AbortError'
        ? `timeout after ${req.timeoutMs} ms`
        : `network_error: ${e.cause?.code ?? e.message}`;
    return {
      statusCode: null,
      error: error.slice(0, 500),
      succeeded: false,
      durationMs: performance.now() - started,
    };
  }
}
