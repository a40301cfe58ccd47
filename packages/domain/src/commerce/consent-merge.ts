/**
 * The consent merge: who may change a customer's consent, and how (docs/campaigns.md, "Consent the
 * service recorded wins"). One pure rule over the log's records, in order, so a replay folds it the
 * same way.
 *
 * An opt-out the service recorded itself (one-click unsubscribe, an SMS STOP reply: the gateway's
 * consent routes append them as CustomerEventReceived records with a `holdfast:` dedup key, which no
 * custom-api event can have) is **locked**: a later plain write (a customer upsert, an order, an
 * ordinary custom-api event) that carries `suppressed: false` or `sms: true`, e.g. from a stale list,
 * does not reverse it. Only an explicit re-consent does: an SMS START/UNSTOP/YES reply the service
 * records (`sms_start`), or a merchant's custom-api consent event whose event_type is `resubscribe` or
 * `opt_in` carrying the consent being granted again. Everything else merges as the spec says: each
 * carried consent key wins, an omitted one is kept; a write may always withdraw consent.
 */

/** Where a record's consent keys come from, as far as the rule is concerned. */
export type ConsentSource = 'plain' | 'service_opt_out' | 'reconsent';

/** The prefix of the dedup keys of the records the service appends itself (the gateway's consent routes). */
export const SERVICE_DEDUP_PREFIX = 'holdfast:';
/** Event types of the service's own opt-out records (read_models.customer_events). */
export const SERVICE_OPT_OUT_EVENT_TYPES: readonly string[] = Object.freeze(['unsubscribe', 'sms_stop']);
/** Event type of the service's record of an SMS START (or UNSTOP, YES) reply. */
export const SERVICE_SMS_START_EVENT_TYPE = 'sms_start';
/** Event types of a merchant's custom-api consent event that count as an explicit re-consent. */
export const RECONSENT_EVENT_TYPES: readonly string[] = Object.freeze(['resubscribe', 'opt_in']);

/**
 * The source of a CustomerEventReceived record's consent keys, from its dedup key and event type (both
 * in the record). Customer upserts and orders are `plain`.
 *
 * @example
 * consentSourceOf({ dedupKey: 'holdfast:unsubscribe:1f…', eventType: 'unsubscribe' }); // 'service_opt_out'
 * consentSourceOf({ dedupKey: 'id:9a…', eventType: 'unsubscribe' });                   // 'plain'
 * consentSourceOf({ dedupKey: 'id:9a…', eventType: 'resubscribe' });                   // 'reconsent'
 */
export function consentSourceOf(r: { readonly dedupKey: string; readonly eventType: string }): ConsentSource {
  const type = r.eventType.trim().toLowerCase();
  if (r.dedupKey.startsWith(SERVICE_DEDUP_PREFIX)) {
    if (SERVICE_OPT_OUT_EVENT_TYPES.includes(type)) return 'service_opt_out';
    if (type === SERVICE_SMS_START_EVENT_TYPE) return 'reconsent';
    return 'plain';
  }
  return RECONSENT_EVENT_TYPES.includes(type) ? 'reconsent' : 'plain';
}

/** A customer's consent and whether each channel's opt-out is locked (the service recorded it). */
export interface ConsentState {
  readonly marketingEmail: boolean;
  readonly sms: boolean;
  readonly suppressed: boolean;
  readonly bounced: boolean;
  /** An unsubscribe the service recorded: `suppressed` stays true until an explicit re-consent. */
  readonly lockedEmail: boolean;
  /** A STOP the service recorded: `sms` stays false until a START or an explicit re-consent. */
  readonly lockedSms: boolean;
}

/** The consent keys one record carries; null or absent: not carried (kept). */
export interface ConsentPatch {
  readonly marketingEmail?: boolean | null;
  readonly sms?: boolean | null;
  readonly suppressed?: boolean | null;
  readonly bounced?: boolean | null;
}

/**
 * The consent after one record: carried keys win, omitted ones are kept, except that a `plain`
 * record cannot lift a locked opt-out (`suppressed` stays true under an email lock, `sms` stays false
 * under an SMS lock). A `service_opt_out` record locks what it withdraws (`suppressed: true` locks
 * email, `sms: false` locks SMS); a `reconsent` record unlocks what it grants again (`suppressed:
 * false` or `marketing_email: true` unlocks email, `sms: true` unlocks SMS).
 *
 * @example
 * const s = mergeConsent(state, { suppressed: true }, 'service_opt_out'); // suppressed, lockedEmail
 * mergeConsent(s, { suppressed: false }, 'plain').suppressed;           // true: the stale list loses
 * mergeConsent(s, { suppressed: false }, 'reconsent').suppressed;       // false, unlocked
 */
export function mergeConsent(c: ConsentState, p: ConsentPatch, source: ConsentSource): ConsentState {
  let lockedEmail = c.lockedEmail;
  let lockedSms = c.lockedSms;
  if (source === 'service_opt_out') {
    if (p.suppressed === true) lockedEmail = true;
    if (p.sms === false) lockedSms = true;
  } else if (source === 'reconsent') {
    if (p.suppressed === false || p.marketingEmail === true) lockedEmail = false;
    if (p.sms === true) lockedSms = false;
  }
  return {
    marketingEmail: p.marketingEmail ?? c.marketingEmail,
    // Under a lock the opt-out holds whatever a plain record says.
    sms: !lockedSms && (p.sms ?? c.sms),
    suppressed: lockedEmail || (p.suppressed ?? c.suppressed),
    bounced: p.bounced ?? c.bounced,
    lockedEmail,
    lockedSms,
  };
}
