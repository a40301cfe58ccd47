import { compatibleExternalId as compatible, preferred } from '@holdfast/domain';
import type { IdentityKeys, LinkMethod } from '@holdfast/domain';

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

/** What identity resolution needs of an index (IdentityIndex, or several routed by account). */
export interface IdentityResolver<I extends Identity = Identity> {
  add(identity: I): void;
  resolve(
    accountId: string,
    keys: IdentityKeys,
  ): { readonly identity: I; readonly method: LinkMethod } | undefined;
  reindex(identity: I, before: IdentityKeys): void;
}

/**
 * One account's customers by key. An email or phone usually names one customer: it maps to that
 * customer, and to an array only when shared (a Set per key cost ~250 bytes per customer held).
 */
interface AccountKeys<I> {
  readonly byExternalId: Map<string, I>;
  readonly byEmail: Map<string, I | I[]>;
  readonly byPhone: Map<string, I | I[]>;
}

/**
 * The customers a chunk can touch, indexed by external id, email and phone: loaded once per chunk,
 * then kept current in memory as the chunk's records create and change customers, so resolution costs
 * no round trip per record and sees exactly what one-by-one application would have seen.
 *
 * The indexed form of the domain's decideIdentity (external_id, then email, then phone, then none;
 * a contradicting external id is not a match; the earliest created, then the smaller id, wins), which
 * identity-rules.test.ts holds it to on random customers.
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
    if (!a)
      this.accounts.set(accountId, (a = { byExternalId: new Map(), byEmail: new Map(), byPhone: new Map() }));
    return a;
  }

  add(identity: I): void {
    const a = this.keysOf(identity.accountId);
    if (identity.externalId !== null) a.byExternalId.set(identity.externalId, identity);
    if (identity.email !== null) include(a.byEmail, identity.email, identity);
    if (identity.phone !== null) include(a.byPhone, identity.phone, identity);
  }

  resolve(
    accountId: string,
    keys: IdentityKeys,
  ): { readonly identity: I; readonly method: LinkMethod } | undefined {
    const a = this.accounts.get(accountId);
    if (!a) return undefined;
    if (keys.externalId !== null) {
      const found = a.byExternalId.get(keys.externalId);
      if (found) return { identity: found, method: 'provider_id' };
    }
    if (keys.email !== null) {
      const found = pick(a.byEmail.get(keys.email), keys.externalId);
      if (found) return { identity: found, method: 'email' };
    }
    if (keys.phone !== null) {
      const found = pick(a.byPhone.get(keys.phone), keys.externalId);
      if (found) return { identity: found, method: 'phone' };
    }
    return undefined;
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
      if (before.externalId !== null) a.byExternalId.delete(before.externalId);
      if (identity.externalId !== null) a.byExternalId.set(identity.externalId, identity);
    }
    if (identity.email !== before.email) {
      if (before.email !== null) exclude(a.byEmail, before.email, identity);
      if (identity.email !== null) include(a.byEmail, identity.email, identity);
    }
    if (identity.phone !== before.phone) {
      if (before.phone !== null) exclude(a.byPhone, before.phone, identity);
      if (identity.phone !== null) include(a.byPhone, identity.phone, identity);
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
 * The earliest created candidate whose external id does not contradict the record's (null on
 * either side is compatible).
 */
function pick<I extends Identity>(held: I | I[] | undefined, externalId: string | null): I | undefined {
  if (held === undefined) return undefined;
  if (!Array.isArray(held)) return compatible(held, externalId) ? held : undefined;
  let best: I | undefined;
  for (const c of held) if (compatible(c, externalId)) best = preferred(best, c);
  return best;
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

  resolve(accountId: string, keys: IdentityKeys) {
    return this.of(accountId).resolve(accountId, keys);
  }

  reindex(identity: I, before: IdentityKeys): void {
    this.of(identity.accountId).reindex(identity, before);
  }
}
