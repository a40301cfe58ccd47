import { mergeConsent, type ConsentSource } from './consent-merge.js';
import { instantKey as parseInstant, type InstantKey } from './instant.js';

/** A postal address: written as a whole or not at all. */
export interface StateAddress {
  readonly street: string | null;
  readonly city: string | null;
  readonly state: string | null;
  readonly zip: string | null;
  readonly country: string | null;
}

/**
 * A customer as the merge rules see it (a row of read_models.customers; timestamps as canonical UTC
 * text, so nothing is rounded on the way back). Mutable because the projector folds a backfill's
 * millions of records into the same objects: {@link evolveCustomer} is the copying form.
 */
export interface CustomerState {
  readonly accountId: string;
  readonly customerId: string;
  externalId: string | null;
  /**
   * The email as identity key: what resolution matches on. The projector keeps the email's blind
   * index here (docs/privacy.md), so a replay resolves a shredded person exactly as live did.
   */
  email: string | null;
  /** The phone as identity key (the projector: its blind index). */
  phone: string | null;
  /** The email itself, in clear; null when unknown or shredded (the row's `email` column). */
  emailClear: string | null;
  /** The phone itself, in clear; null when unknown or shredded (the row's `phone` column). */
  phoneClear: string | null;
  name: string | null;
  address: StateAddress;
  consentMarketingEmail: boolean;
  consentSms: boolean;
  consentSuppressed: boolean;
  consentBounced: boolean;
  /** An unsubscribe the service recorded: only an explicit re-consent lifts it (`mergeConsent`). */
  consentLockedEmail: boolean;
  /** An SMS STOP the service recorded: only a START or an explicit re-consent lifts it. */
  consentLockedSms: boolean;
  sourceLabel: string;
  subscriptionStatus: string | null;
  subscriptionStartedAt: string | null;
  readonly createdAt: string;
  /** received_at of the latest record that changed the row. */
  updatedAt: string;
  /** createdAt in microseconds: the tie-breaker of identity resolution. */
  readonly createdUs: number;
}

/**
 * What one record says about a customer. `null` or absent = not carried: keep the current value (each
 * consent key on its own); the address is replaced only when present.
 */
export interface CustomerPatch {
  readonly externalId: string | null;
  /** Identity keys (see CustomerState.email): the projector passes blind indexes. */
  readonly email: string | null;
  readonly phone: string | null;
  /** The values in clear (absent: the identity key is the value itself, as in the spec's examples). */
  readonly emailClear?: string | null;
  readonly phoneClear?: string | null;
  readonly name?: string | null;
  readonly address?: StateAddress | null;
  readonly consentMarketingEmail?: boolean | null;
  readonly consentSms?: boolean | null;
  readonly consentSuppressed?: boolean | null;
  readonly consentBounced?: boolean | null;
  /** Who says so (`consentSourceOf` for a customer event); absent: `plain` (upserts, orders). */
  readonly consentSource?: ConsentSource;
  readonly sourceLabel?: string | null;
  readonly subscriptionStatus?: string | null;
  readonly subscriptionStartedAt?: string | null;
}

const NO_ADDRESS: StateAddress = Object.freeze({
  street: null,
  city: null,
  state: null,
  zip: null,
  country: null,
});

/**
 * A customer created by a record received at `receivedAt`: no consent, source_label custom-api.
 *
 * @example
 * newCustomer(accountId, customerId, '2025-01-01T00:00:00Z').consentSms; // false
 */
export function newCustomer(
  accountId: string,
  customerId: string,
  receivedAt: string,
  instant: InstantKey = parseInstant,
): CustomerState {
  return {
    accountId,
    customerId,
    externalId: null,
    email: null,
    phone: null,
    emailClear: null,
    phoneClear: null,
    name: null,
    address: NO_ADDRESS,
    consentMarketingEmail: false,
    consentSms: false,
    consentSuppressed: false,
    consentBounced: false,
    consentLockedEmail: false,
    consentLockedSms: false,
    sourceLabel: 'custom-api',
    subscriptionStatus: null,
    subscriptionStartedAt: null,
    createdAt: receivedAt,
    updatedAt: receivedAt,
    createdUs: instant(receivedAt),
  };
}

/**
 * The customer merge (spec: customer row): carried values win, omitted ones keep (consent key by
 * key, under `mergeConsent`: an opt-out the service recorded is not lifted by a plain write); the
 * address as a whole; subscription_started_at write-once, earliest wins. Applies `p` to
 * `c` in place and reports whether anything changed; updated_at moves only on a change, so
 * re-posting the same data writes nothing. `instant` may be a memoised {@link instantKey}.
 *
 * updated_at moves on a change a replay sees whoever was forgotten: identifiers (their blind
 * indexes), consent, source label, subscription. A change of personal values alone (name, address,
 * the value behind an unchanged email or phone index) writes the row but leaves updated_at: those
 * values are sealed under their person's key, and after an erasure a replay cannot see them change,
 * so a timestamp moved by them would differ between the live row and its replay, and would keep
 * telling when the forgotten person changed their name (docs/privacy.md).
 *
 * @example
 * const c = newCustomer(a, id, t0);
 * mergeCustomer(c, { externalId: 'e1', email: null, phone: null, consentSms: true }, t1); // true
 */
export function mergeCustomer(
  c: CustomerState,
  p: CustomerPatch,
  receivedAt: string,
  instant: InstantKey = parseInstant,
): boolean {
  let changed = false;
  // Whether a change a replay sees without the personal values happened (moves updated_at).
  let seen = false;
  // Field by field rather than through a generic setter: this runs for every order of a backfill.
  if (p.externalId != null && p.externalId !== c.externalId) {
    c.externalId = p.externalId;
    changed = seen = true;
  }
  // The value in clear moves with its identity key; a record of a shredded subject carries the key
  // without the value (the value stays unknown), and a later readable one fills it in.
  if (p.email != null) {
    const clear = p.emailClear === undefined ? p.email : p.emailClear;
    if (p.email !== c.email) {
      c.email = p.email;
      c.emailClear = clear;
      changed = seen = true;
    } else if (clear !== null && clear !== c.emailClear) {
      c.emailClear = clear;
      changed = true;
    }
  }
  if (p.phone != null) {
    const clear = p.phoneClear === undefined ? p.phone : p.phoneClear;
    if (p.phone !== c.phone) {
      c.phone = p.phone;
      c.phoneClear = clear;
      changed = seen = true;
    } else if (clear !== null && clear !== c.phoneClear) {
      c.phoneClear = clear;
      changed = true;
    }
  }
  if (p.name != null && p.name !== c.name) {
    c.name = p.name;
    changed = true;
  }
  const a = p.address;
  const address = c.address;
  if (
    a &&
    (a.street !== address.street ||
      a.city !== address.city ||
      a.state !== address.state ||
      a.zip !== address.zip ||
      a.country !== address.country)
  ) {
    c.address = a;
    changed = true;
  }
  if (
    p.consentMarketingEmail != null ||
    p.consentSms != null ||
    p.consentSuppressed != null ||
    p.consentBounced != null
  ) {
    const next = mergeConsent(
      {
        marketingEmail: c.consentMarketingEmail,
        sms: c.consentSms,
        suppressed: c.consentSuppressed,
        bounced: c.consentBounced,
        lockedEmail: c.consentLockedEmail,
        lockedSms: c.consentLockedSms,
      },
      {
        marketingEmail: p.consentMarketingEmail,
        sms: p.consentSms,
        suppressed: p.consentSuppressed,
        bounced: p.consentBounced,
      },
      p.consentSource ?? 'plain',
    );
    if (
      next.marketingEmail !== c.consentMarketingEmail ||
      next.sms !== c.consentSms ||
      next.suppressed !== c.consentSuppressed ||
      next.bounced !== c.consentBounced ||
      next.lockedEmail !== c.consentLockedEmail ||
      next.lockedSms !== c.consentLockedSms
    ) {
      c.consentMarketingEmail = next.marketingEmail;
      c.consentSms = next.sms;
      c.consentSuppressed = next.suppressed;
      c.consentBounced = next.bounced;
      c.consentLockedEmail = next.lockedEmail;
      c.consentLockedSms = next.lockedSms;
      changed = seen = true;
    }
  }
  if (p.sourceLabel != null && p.sourceLabel !== c.sourceLabel) {
    c.sourceLabel = p.sourceLabel;
    changed = seen = true;
  }
  if (p.subscriptionStatus != null && p.subscriptionStatus !== c.subscriptionStatus) {
    c.subscriptionStatus = p.subscriptionStatus;
    changed = seen = true;
  }
  const started = p.subscriptionStartedAt;
  if (started && (c.subscriptionStartedAt === null || instant(started) < instant(c.subscriptionStartedAt))) {
    c.subscriptionStartedAt = started;
    changed = seen = true;
  }
  if (seen && instant(receivedAt) > instant(c.updatedAt)) c.updatedAt = receivedAt;
  return changed;
}

/**
 * The copying form of {@link mergeCustomer} (evolve): the next state, `state` itself when nothing
 * changed.
 *
 * @example
 * const next = evolveCustomer(state, { externalId: null, email: null, phone: null, consentSms: false }, now);
 */
export function evolveCustomer(
  state: CustomerState,
  patch: CustomerPatch,
  receivedAt: string,
): CustomerState {
  const next = { ...state };
  return mergeCustomer(next, patch, receivedAt) ? next : state;
}
