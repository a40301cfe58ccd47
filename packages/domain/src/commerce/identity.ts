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
 * Identity resolution (spec: "external_id first, then email, then phone, then a new customer is
 * created"), over an account's customers as plain values: the definition that the projector's indexed
 * form (IdentityIndex) must agree with.
 *
 * - No key at all: refused (the record cannot name a customer).
 * - external_id: the customer holding it.
 * - email, then phone: among customers holding it whose external id is compatible
 *   ({@link compatibleExternalId}), the preferred one ({@link preferred}), so the choice never depends
 *   on load order.
 * - Otherwise: create.
 *
 * @example
 * decideIdentity(customers, { externalId: null, email: 'ann@x.co', phone: null });
 * // { kind: 'matched', identity: …, method: 'email' } | { kind: 'create' }
 */
export function decideIdentity<I extends Identity>(
  customers: Iterable<I>,
  keys: IdentityKeys,
): IdentityDecision<I> {
  if (!hasIdentity(keys)) return { kind: 'refused', reason: 'no_identity' };
  const all = [...customers];
  if (keys.externalId !== null) {
    const found = all.find((c) => c.externalId === keys.externalId);
    if (found) return { kind: 'matched', identity: found, method: 'provider_id' };
  }
  for (const method of ['email', 'phone'] as const) {
    const value = keys[method];
    if (value === null) continue;
    let best: I | undefined;
    for (const c of all)
      if (c[method] === value && compatibleExternalId(c, keys.externalId)) best = preferred(best, c);
    if (best) return { kind: 'matched', identity: best, method };
  }
  return { kind: 'create' };
}
