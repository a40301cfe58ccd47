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

/**
 * The Standard Webhooks signing key of a `whsec_` secret: the base64 after the prefix, decoded. The
 * service's secrets are `whsec_` + 32 base62 characters, which is valid base64 for 24 bytes, so one
 * secret serves both signatures: the spec's header keys HMAC with the whole string, the Standard
 * Webhooks header with the decoded bytes (exactly what the `standardwebhooks` libraries do with it).
 */
export function standardSigningKey(secret: string): Buffer {
  return Buffer.from(secret.startsWith('whsec_') ? secret.slice(6) : secret, 'base64');
}

/**
 * One Standard Webhooks signature: `v1,` + base64 HMAC-SHA256 of `id.timestamp.body` (timestamp in
 * whole seconds since the epoch), keyed with `standardSigningKey(secret)`.
 *
 * @example
 * standardSignature('whsec_MfKQ9r8GKYqrTwjUPD8ILPZIo2LaLaSw', 'msg_p5jXN8AQM9LWM0D4loKWxJek', 1614265330, '{"test": 2432232314}');
 * // 'v1,g0hM9SsE+OTPJTGt/tmIKtSyZlE3uFJELVlNIOLJ1OE='
 */
export function standardSignature(
  secret: string,
  id: string,
  timestampSeconds: number,
  rawBody: string | Buffer,
): string {
  const mac = createHmac('sha256', standardSigningKey(secret))
    .update(`${id}.${timestampSeconds}.`)
    .update(rawBody)
    .digest('base64');
  return `v1,${mac}`;
}

/**
 * Every signature header of one delivery attempt. `secrets` are the subscription's signing secrets,
 * newest first: X-Service-Signature (the spec's) uses the newest; `webhook-signature` carries one
 * `v1,` signature per secret, space-separated, so a receiver holding either secret during a rotation's
 * grace window verifies. `webhook-id` is the delivery id (the same on every retry, like
 * X-Service-Delivery); `webhook-timestamp` is the attempt's time, so receivers can refuse replays.
 */
export function signatureHeaders(
  secrets: readonly string[],
  deliveryId: string,
  rawBody: string | Buffer,
  at: Date,
): Record<string, string> {
  if (!secrets.length) throw new Error('a delivery needs at least one signing secret');
  const ts = Math.floor(at.getTime() / 1000);
  return {
    'x-service-signature': signBody(secrets[0]!, rawBody),
    'webhook-id': deliveryId,
    'webhook-timestamp': String(ts),
    'webhook-signature': secrets.map((s) => standardSignature(s, deliveryId, ts, rawBody)).join(' '),
  };
}
