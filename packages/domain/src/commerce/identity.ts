/** The identity columns of a customer, as identity resolution needs them (a CustomerState has them). */
export interface Identity {
  readonly accountId: string;
  readonly customerId: string;
  readonly externalId: string | null;
  readonly email: string | null;
  readonly phone: string | null;
  /** created_at in microseconds: the tie-breaker when several customers share an email or phone. */
  readonly createdUs: number;
}

/** The keys a record carries. */
export interface IdentityKeys {
  readonly externalId: string | null;
  readonly email: string | null;
  readonly phone: string | null;
}

/** How a record found its customer (the `link_method` of customer events). */
export type LinkMethod = 'provider_id' | 'email' | 'phone';

/** What identity resolution decides for one record. */
export type IdentityDecision<I extends Identity = Identity> =
  | { readonly kind: 'matched'; readonly identity: I; readonly method: LinkMethod }
  | { readonly kind: 'create' }
  | { readonly kind: 'refused'; readonly reason: 'no_identity' };

/** Whether a record carries any key at all (a record without one is refused). */
export function hasIdentity(k: IdentityKeys): boolean {
  return k.externalId !== null || k.email !== null || k.phone !== null;
}

/**
 * Whether a customer found by email or phone may be the record's: its external id does not contradict
 * the record's (null on either side is compatible). Two people can share a household email; a
 * different external id says this is someone else.
 */
export function compatibleExternalId(i: Identity, externalId: string | null): boolean {
  return i.externalId === null || externalId === null || i.externalId === externalId;
}

/** Of two candidates, the one resolution prefers: the earliest created, then the smaller id. */
export function preferred<I extends Identity>(best: I | undefined, c: I): I {
  if (!best) return c;
  return c.createdUs < best.createdUs || (c.createdUs === best.createdUs && c.customerId < best.customerId)
    ? c
    : best;
}

/**
 * Where resolution finds candidates: an account's customers by key. One, several (a shared household
 * email) or none per email and phone. The projector's index (kept in memory across records and chunks)
 * is one; {@link identityLookupOf} over a plain list is another. A lookup only finds: which candidate
 * wins is {@link decideIdentity}'s.
 */
export interface IdentityLookup<I extends Identity = Identity> {
  byExternalId(externalId: string): I | undefined;
  byEmail(email: string): I | readonly I[] | undefined;
  byPhone(phone: string): I | readonly I[] | undefined;
}

const CREATE = Object.freeze({ kind: 'create' as const });
const REFUSED = Object.freeze({ kind: 'refused' as const, reason: 'no_identity' as const });

const isMany = <I>(held: I | readonly I[]): held is readonly I[] => Array.isArray(held);

/** Of the customers holding an email or phone, the one the record may be ({@link preferred} among compatible). */
function pick<I extends Identity>(
  held: I | readonly I[] | undefined,
  externalId: string | null,
): I | undefined {
  if (held === undefined) return undefined;
  if (!isMany(held)) return compatibleExternalId(held, externalId) ? held : undefined;
  let best: I | undefined;
  for (const c of held) if (compatibleExternalId(c, externalId)) best = preferred(best, c);
  return best;
}

/**
 * A lookup over a plain list of one account's customers (a scan per lookup: for tests and small sets).
 *
 * @example
 * decideIdentity(identityLookupOf(customers), keys);
 */
export function identityLookupOf<I extends Identity>(customers: Iterable<I>): IdentityLookup<I> {
  const all = [...customers];
  return {
    byExternalId: (v) => all.find((c) => c.externalId === v),
    byEmail: (v) => all.filter((c) => c.email === v),
    byPhone: (v) => all.filter((c) => c.phone === v),
  };
}

/**
 * Identity resolution (spec: "external_id first, then email, then phone, then a new customer is
 * created"): the one rule, which the projector calls for every order, customer row, customer event and
 * zero-party submission with its in-memory index as the lookup.
 *
 * - No key at all: refused (the record cannot name a customer).
 * - external_id: the customer holding it.
 * - email, then phone: among customers holding it whose external id is compatible
 *   ({@link compatibleExternalId}), the preferred one ({@link preferred}), so the choice never depends
 *   on load order.
 * - Otherwise: create.
 *
 * `customers` is a lookup, or a plain list of the account's customers (scanned).
 *
 * @example
 * decideIdentity(customers, { externalId: null, email: 'ann@x.co', phone: null });
 * // { kind: 'matched', identity: …, method: 'email' } | { kind: 'create' }
 */
export function decideIdentity<I extends Identity>(
  customers: IdentityLookup<I> | Iterable<I>,
  keys: IdentityKeys,
): IdentityDecision<I> {
  if (!hasIdentity(keys)) return REFUSED;
  const lookup = Symbol.iterator in customers ? identityLookupOf(customers) : customers;
  if (keys.externalId !== null) {
    const found = lookup.byExternalId(keys.externalId);
    if (found) return { kind: 'matched', identity: found, method: 'provider_id' };
  }
  if (keys.email !== null) {
    const found = pick(lookup.byEmail(keys.email), keys.externalId);
    if (found) return { kind: 'matched', identity: found, method: 'email' };
  }
  if (keys.phone !== null) {
    const found = pick(lookup.byPhone(keys.phone), keys.externalId);
    if (found) return { kind: 'matched', identity: found, method: 'phone' };
  }
  return CREATE;
}
