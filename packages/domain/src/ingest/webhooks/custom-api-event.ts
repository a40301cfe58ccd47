import { normalizeAddress, normalizeConsent } from '../shared/address-consent.js';
import type { NormalizedCustomer } from '../customers/classify-customers.js';
import { normalizePhone } from '../shared/normalize-phone.js';
import { idToString, isPlainObject, normalizeEmail, stringOrNull } from '../shared/text.js';
import { canonicalJson, fnv1a64 } from './canonical-hash.js';

/** POST /webhooks/custom-api body, normalised like a customer row. */
export interface CustomApiEvent extends Pick<
  NormalizedCustomer,
  'external_id' | 'email' | 'phone' | 'name' | 'address' | 'consent' | 'source_label'
> {
  event_type: string;
}

/** A parsed webhook body, or the `detail` of its 400. */
export type ParsedWebhook<K extends string, T> =
  ({ readonly ok: true } & { readonly [key in K]: T }) | { readonly ok: false; readonly detail: string };

/** 400 detail for a body that is not a JSON object. */
export const NOT_AN_OBJECT_DETAIL = 'Body must be a JSON object.';
/** 400 detail for a custom-api event without identity. */
export const CUSTOM_API_NO_IDENTITY_DETAIL =
  'At least one of email, phone or external_id (customer_id) is required.';

const phoneText = (v: unknown) => (typeof v === 'number' && Number.isFinite(v) ? String(v) : stringOrNull(v));

/**
 * Parses a free-form custom-api event. external_id falls back to its alias customer_id (numbers are
 * accepted as ids and stringified); email trimmed and lower-cased; phone to E.164 (invalid → null);
 * address and consent as for customer rows; event_type defaults to 'custom', source_label to
 * 'custom-api'. Keys of the wrong type count as absent (the body is free-form, so no 422).
 * 400 when the body is not an object, or when no usable email, phone or external id remains.
 *
 * @example
 * parseCustomApiEvent({ customer_id: 42, consent: { sms: false } });
 * // { ok: true, event: { external_id: '42', ..., consent: { sms: false, ... }, event_type: 'custom', source_label: 'custom-api' } }
 */
export function parseCustomApiEvent(body: unknown): ParsedWebhook<'event', CustomApiEvent> {
  if (!isPlainObject(body)) return { ok: false, detail: NOT_AN_OBJECT_DETAIL };
  const event: CustomApiEvent = {
    external_id: idToString(body.external_id) ?? idToString(body.customer_id),
    email: typeof body.email === 'string' ? normalizeEmail(body.email) : null,
    phone: normalizePhone(phoneText(body.phone)),
    name: stringOrNull(body.name),
    address: normalizeAddress(body.address),
    consent: normalizeConsent(body.consent),
    event_type: stringOrNull(body.event_type) ?? 'custom',
    source_label: stringOrNull(body.source_label) ?? 'custom-api',
  };
  if (event.external_id === null && event.email === null && event.phone === null)
    return { ok: false, detail: CUSTOM_API_NO_IDENTITY_DETAIL };
  return { ok: true, event };
}

/**
 * Dedup key of a custom-api event (spec: "event_type plus external_id (or a hash of the body)"):
 * `id:` + FNV-1a 64 of canonical `[event_type, external_id]` when there is an external id, else
 * `body:` + FNV-1a 64 of the canonical raw body (key order does not matter). Fixed length, and the
 * prefixes keep the two kinds apart.
 *
 * @example
 * dedupKeyForCustomApi(event, rawBody); // 'id:3f0c…' (16 hex digits)
 */
export function dedupKeyForCustomApi(
  event: Pick<CustomApiEvent, 'event_type' | 'external_id'>,
  rawBody: unknown,
): string {
  return event.external_id !== null
    ? `id:${fnv1a64(canonicalJson([event.event_type, event.external_id]))}`
    : `body:${fnv1a64(canonicalJson(rawBody))}`;
}
