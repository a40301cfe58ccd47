import { canonicalJson, fnv1a64 } from './canonical-hash.js';
import type { CustomApiEvent } from './custom-api-event.js';

/**
 * The `warning` added to `{received: true, duplicate: true}` when the duplicate's content differs from
 * the first event of its dedup key: the spec's dedup (event_type + external_id) ignores it, so a
 * consent change sent that way would vanish silently. It names the two safe ways.
 */
export const DUPLICATE_DIFFERS_WARNING =
  'Ignored: an event with this event_type and external_id was already applied, and this one differs from it ' +
  '(the spec deduplicates on event_type plus external_id). To change consent or profile fields, ' +
  'POST /ingest/customers with the customer row, or send the event with a distinct event_type ' +
  '(for example "consent_update_<timestamp>").';

/**
 * Content key of a parsed custom-api event: FNV-1a 64 of its canonical JSON. It covers exactly what
 * the projector would apply (the normalised event), so a resend with other key order, other
 * whitespace or unused keys is the same content.
 *
 * @example
 * customApiContentKey(event); // '9d1c0f5e2b7a4c11'
 */
export function customApiContentKey(event: {
  readonly [K in keyof CustomApiEvent]: CustomApiEvent[K] | null;
}): string {
  return fnv1a64(canonicalJson(event));
}

/**
 * The warning of a duplicate custom-api event: DUPLICATE_DIFFERS_WARNING when its content key differs
 * from the one stored with the first event of its dedup key, else null. A first event stored before
 * content keys were recorded (null) cannot be compared and gets none.
 *
 * @example
 * duplicateWarning(storedKey, customApiContentKey(event)); // null when the resend is identical
 */
export function duplicateWarning(storedContentKey: string | null, contentKey: string): string | null {
  return storedContentKey !== null && storedContentKey !== contentKey ? DUPLICATE_DIFFERS_WARNING : null;
}
