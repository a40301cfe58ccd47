import { createHmac, timingSafeEqual } from 'node:crypto';

/**
 * The request signature of Twilio's webhooks (`X-Twilio-Signature`): base64 HMAC-SHA1, keyed with the
 * account's auth token, of the full URL the provider called followed by every POST parameter, sorted
 * by name, as name then value with no separators.
 *
 * @example
 * twilioSignature(token, 'https://hf.example.com/providers/sms/<account>/inbound', { From: '+1555…', Body: 'STOP' });
 */
export function twilioSignature(authToken: string, url: string, params: Iterable<[string, string]>): string {
  const sorted = [...params].sort(([a], [b]) => (a < b ? -1 : a > b ? 1 : 0));
  const data = url + sorted.map(([k, v]) => k + v).join('');
  return createHmac('sha1', authToken).update(data, 'utf8').digest('base64');
}

/** Whether `signature` is the one `twilioSignature` computes (constant-time comparison). */
export function verifyTwilioSignature(
  authToken: string,
  url: string,
  params: Iterable<[string, string]>,
  signature: string | undefined,
): boolean {
  if (!signature) return false;
  const expected = Buffer.from(twilioSignature(authToken, url, params));
  const given = Buffer.from(signature);
  return expected.length === given.length && timingSafeEqual(expected, given);
}
