import { createHmac, timingSafeEqual } from 'node:crypto';

/**
 * X-Service-Signature of a delivery: hex HMAC-SHA256 of the raw body bytes, keyed with the whole
 * subscription secret (the `whsec_…` string, UTF-8) — spec, Events: outbound webhooks.
 *
 * @example
 * signBody('whsec_abc', '{"event":"campaign.sent","data":{}}'); // '5f0c…' (64 hex digits)
 */
export function signBody(secret: string, rawBody: string | Buffer): string {
  return createHmac('sha256', secret).update(rawBody).digest('hex');
}

/** Whether `signature` is the signature of `rawBody` under `secret` (constant-time comparison). */
export function verifySignature(secret: string, rawBody: string | Buffer, signature: string): boolean {
  const expected = Buffer.from(signBody(secret, rawBody), 'hex');
  const given = /^[0-9a-f]{64}$/i.test(signature) ? Buffer.from(signature, 'hex') : Buffer.alloc(0);
  return given.length === expected.length && timingSafeEqual(given, expected);
}
