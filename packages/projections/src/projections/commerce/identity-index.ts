import type { IdentityKeys, IdentityLookup } from '@holdfast/domain';

export type { IdentityKeys, LinkMethod } from '@holdfast/domain';

/** The identity columns of a customer, as identity resolution needs them (a CustomerState has them). */
export interface Identity {
  readonly accountId: string;
  readonly customerId: string;
  externalId: string | null;
  email: string | null;
  phone: string | null;
  /** created_at in microseconds: the tie-breaker when several customers share an email or phone. */
  readonly createdUs: number;
}

/**
 * What the commerce fold needs of an index (IdentityIndex, or several routed by account): an account's
 * customers by key for the domain's decideIdentity, kept current as records create and change them.
 */
export interface IdentityResolver<I extends Identity = Identity> {
  add(identity: I): void;
  lookup(accountId: string): IdentityLookup<I>;
  reindex(identity: I, before: IdentityKeys): void;
}

/**
 * One account's customers by key. An email or phone usually names one customer: it maps to that
 * customer, and to an array only when shared (a Set per key cost ~250 bytes per customer held).
 */
class AccountKeys<I extends Identity> implements IdentityLookup<I> {
  readonly externalIds = new Map<string, I>();
  readonly emails = new Map<string, I | I[]>();
  readonly phones = new Map<string, I | I[]>();

  byExternalId(v: string): I | undefined {
    return this.externalIds.get(v);
  }
  byEmail(v: string): I | I[] | undefined {
    return this.emails.get(v);
  }
  byPhone(v: string): I | I[] | undefined {
    return this.phones.get(v);
  }
}

/** The lookup of an account the index holds no customer of. */
const NOBODY: IdentityLookup<never> = Object.freeze({
  byExternalId: () => undefined,
  byEmail: () => undefined,
  byPhone: () => undefined,
});

/**
 * The customers a chunk can touch, indexed by external id, email and phone: loaded once per chunk,
 * then kept current in memory as the chunk's records create and change customers, so resolution costs
 * no round trip per record and sees exactly what one-by-one application would have seen.
 *
 * A cache in front of the domain's decideIdentity, which decides (external_id, then email, then phone,
 * then create; a contradicting external id is not a match; the earliest created, then the smaller id,
 * wins): this only finds the candidates. identity-rules.test.ts holds its lookups, through adds and
 * re-indexes, to the rule over the plain list of customers.
 */
export class IdentityIndex<I extends Identity = Identity> implements IdentityResolver<I> {
  // Per account, then per value: no `account + value` key string is built per lookup (a backfill
  // resolves every order, and those strings were a visible share of the projector's time).
  private readonly accounts = new Map<string, AccountKeys<I>>();

  constructor(identities: Iterable<I> = []) {
    for (const i of identities) this.add(i);
  }

  private keysOf(accountId: string): AccountKeys<I> {
    let a = this.accounts.get(accountId);
    if (!a) this.accounts.set(accountId, (a = new AccountKeys<I>()));
    return a;
  }

  add(identity: I): void {
    const a = this.keysOf(identity.accountId);
    if (identity.externalId !== null) a.externalIds.set(identity.externalId, identity);
    if (identity.email !== null) include(a.emails, identity.email, identity);
    if (identity.phone !== null) include(a.phones, identity.phone, identity);
  }

  lookup(accountId: string): IdentityLookup<I> {
    return this.accounts.get(accountId) ?? NOBODY;
  }

  /** Drops every customer of `accountId` from the index. */
  forget(accountId: string): void {
    this.accounts.delete(accountId);
  }

  /**
   * Re-indexes `identity` after its keys may have changed from `before` (carried values win, omitted
   * keep: a key only ever changes to another non-null value).
   */
  reindex(identity: I, before: IdentityKeys): void {
    const a = this.keysOf(identity.accountId);
    if (identity.externalId !== before.externalId) {
      if (before.externalId !== null) a.externalIds.delete(before.externalId);
      if (identity.externalId !== null) a.externalIds.set(identity.externalId, identity);
    }
    if (identity.email !== before.email) {
      if (before.email !== null) exclude(a.emails, before.email, identity);
      if (identity.email !== null) include(a.emails, identity.email, identity);
    }
    if (identity.phone !== before.phone) {
      if (before.phone !== null) exclude(a.phones, before.phone, identity);
      if (identity.phone !== null) include(a.phones, identity.phone, identity);
    }
  }
}

function include<T>(map: Map<string, T | T[]>, key: string, item: T): void {
  const held = map.get(key);
  if (held === undefined) map.set(key, item);
  else if (Array.isArray(held)) {
    if (!held.includes(item)) held.push(item);
  } else if (held !== item) map.set(key, [held, item]);
}

function exclude<T>(map: Map<string, T | T[]>, key: string, item: T): void {
  const held = map.get(key);
  if (held === item) map.delete(key);
  else if (Array.isArray(held)) {
    const rest = held.filter((h) => h !== item);
    if (rest.length === 1) map.set(key, rest[0]!);
    else if (rest.length === 0) map.delete(key);
    else map.set(key, rest);
  }
}

/**
 * Two indexes behind one: accounts in `routed` resolve in `resident` (kept in memory across chunks),
 * every other account in `local` (loaded for this chunk). Accounts never share customers, so each
 * account's resolution sees exactly one complete index.
 */
export class RoutedIdentities<I extends Identity> implements IdentityResolver<I> {
  constructor(
    private readonly resident: IdentityIndex<I>,
    private readonly routed: ReadonlySet<string>,
    private readonly local: IdentityIndex<I>,
  ) {}

  private of(accountId: string): IdentityIndex<I> {
    return this.routed.has(accountId) ? this.resident : this.local;
  }

  add(identity: I): void {
    this.of(identity.accountId).add(identity);
  }

  lookup(accountId: string): IdentityLookup<I> {
    return this.of(accountId).lookup(accountId);
  }

  reindex(identity: I, before: IdentityKeys): void {
    this.of(identity.accountId).reindex(identity, before);
  }
}
