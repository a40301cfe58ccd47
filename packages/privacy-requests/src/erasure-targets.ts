import type { PersonIndexes } from './person-indexes.js';

/** A customer of the read models as an erasure matches it: its identifiers' blind indexes. */
export interface CandidateCustomer {
  readonly customerId: string;
  /** The index of its external id (external ids are stored in clear; the worker indexes them). */
  readonly externalIdIndex: string | null;
  readonly emailIndex: string | null;
  readonly phoneIndex: string | null;
}

/**
 * Which customers an erasure erases, by the spec's identity rules on blind indexes: the customer
 * holding the external id; every customer holding the email or the phone whose external id does not
 * contradict the request's (a different external id is someone else who shares a household email;
 * null on either side is compatible, as `compatibleExternalId` decides for ingest). Unlike ingest,
 * which links a record to ONE preferred customer, an erasure takes every compatible holder: each of
 * them holds the person's identifier. Sorted, without duplicates.
 *
 * @example
 * erasureTargets([{ customerId: 'c1', externalIdIndex: 'X', emailIndex: 'E', phoneIndex: null }], { externalId: null, email: 'E', phone: null });
 * // ['c1']
 */
export function erasureTargets(customers: Iterable<CandidateCustomer>, person: PersonIndexes): string[] {
  const out = new Set<string>();
  const compatible = (c: CandidateCustomer) =>
    c.externalIdIndex === null || person.externalId === null || c.externalIdIndex === person.externalId;
  for (const c of customers) {
    if (person.externalId !== null && c.externalIdIndex === person.externalId) out.add(c.customerId);
    else if (person.email !== null && c.emailIndex === person.email && compatible(c)) out.add(c.customerId);
    else if (person.phone !== null && c.phoneIndex === person.phone && compatible(c)) out.add(c.customerId);
  }
  return [...out].sort();
}
