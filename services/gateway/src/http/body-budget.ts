import type { IncomingMessage } from 'node:http';
import type { RequestHandler } from 'express';
import { HttpError, RateLimitedError } from '@holdfast/platform';

/** The detail of the 503 answered when the gateway's body budget is spent (pinned by tests). */
export const BODY_BUDGET_DETAIL =
  'The gateway is receiving too much data at once; retry this request in a moment.';

/** Seconds a client is asked to wait when the budget is spent: bodies in flight drain in about that. */
export const BODY_BUDGET_RETRY_AFTER_S = 2;

/** 503 with Retry-After: the request-body bytes in flight would exceed the gateway's budget. */
export class BodyBudgetExceededError extends HttpError {
  override readonly name = 'BodyBudgetExceededError';
  constructor() {
    super(503, BODY_BUDGET_DETAIL, { 'Retry-After': String(BODY_BUDGET_RETRY_AFTER_S) });
  }
}

/**
 * Who a body's bytes are counted against besides the gateway: the authenticated key and account
 * (`key:<id>`, `account:<id>`). A request read before any authentication has none.
 */
export interface BodyOwners {
  readonly keyId: string | null;
  readonly accountId: string;
}

/** The shares of the budget (bytes): what one key, and one account, may hold at once. */
export interface BodyShares {
  readonly perKeyBytes: number;
  readonly perAccountBytes: number;
}

/** What one reservation would overrun, or null when it fits: the owner's share is looked at first. */
export type BodyRefusal = 'key' | 'account' | 'gateway';

/** What is held now: in all, and by each key and account holding anything. */
export interface BodyHoldings {
  readonly total: number;
  readonly byKey: ReadonlyMap<string, number>;
  readonly byAccount: ReadonlyMap<string, number>;
}

/**
 * The rule: `bytes` more fit when the key stays within `perKeyBytes`, its account within
 * `perAccountBytes`, and the gateway within `capacity`. A key or account over its share is refused
 * as itself (its own excess: 429), whatever room the gateway has left; only a caller within its
 * shares is refused for the gateway as a whole (503). So one key holding slow uploads can fill its
 * share, never the whole budget, and every other account keeps the rest.
 *
 * @example
 * bodyRefusal({ total: 0, byKey: new Map([['k', 64]]), byAccount: new Map() }, 1, { keyId: 'k', accountId: 'a' }, 256, { perKeyBytes: 64, perAccountBytes: 128 });
 * // 'key'
 */
export function bodyRefusal(
  held: BodyHoldings,
  bytes: number,
  owners: BodyOwners | null,
  capacity: number,
  shares: BodyShares,
): BodyRefusal | null {
  if (owners?.keyId != null && (held.byKey.get(owners.keyId) ?? 0) + bytes > shares.perKeyBytes) return 'key';
  if (owners && (held.byAccount.get(owners.accountId) ?? 0) + bytes > shares.perAccountBytes)
    return 'account';
  if (held.total + bytes > capacity) return 'gateway';
  return null;
}

/**
 * The request-body bytes a gateway holds at once (BODY_BUDGET_BYTES), with a share per key
 * (BODY_BUDGET_PER_KEY_BYTES) and per account (BODY_BUDGET_PER_ACCOUNT_BYTES). A body reserves its
 * declared Content-Length before the first byte is read (or each chunk as it arrives when the length
 * is not declared) and gives it back when its answer is finished, so the parsed copy is covered too.
 * Over the budget the request is answered 503 with Retry-After at once: load is shed, memory never
 * runs out (about 30 parallel 32 MiB bodies used to exhaust a gateway). Over its key's or account's
 * share, 429 with Retry-After (`bodyRefusal`): one tenant's slow uploads cannot spend everyone's.
 *
 * @example
 * const budget = new BodyBudget(256 * 1024 * 1024, { perKeyBytes: 64 << 20, perAccountBytes: 128 << 20 });
 * const refused = budget.reserve(len, { keyId, accountId }); // null: taken
 */
export class BodyBudget {
  private total = 0;
  private readonly byKey = new Map<string, number>();
  private readonly byAccount = new Map<string, number>();
  readonly shares: BodyShares;

  constructor(
    readonly capacity: number,
    shares: Partial<BodyShares> = {},
  ) {
    this.shares = {
      perKeyBytes: shares.perKeyBytes ?? Infinity,
      perAccountBytes: shares.perAccountBytes ?? Infinity,
    };
  }

  /** Takes `bytes` for `owners` if they fit; otherwise takes nothing and says what was overrun. */
  reserve(bytes: number, owners: BodyOwners | null = null): BodyRefusal | null {
    const held = { total: this.total, byKey: this.byKey, byAccount: this.byAccount };
    const refusal = bodyRefusal(held, bytes, owners, this.capacity, this.shares);
    if (refusal) return refusal;
    this.total += bytes;
    if (owners?.keyId != null) add(this.byKey, owners.keyId, bytes);
    if (owners) add(this.byAccount, owners.accountId, bytes);
    return null;
  }

  release(bytes: number, owners: BodyOwners | null = null): void {
    this.total = Math.max(0, this.total - bytes);
    if (owners?.keyId != null) add(this.byKey, owners.keyId, -bytes);
    if (owners) add(this.byAccount, owners.accountId, -bytes);
  }

  /** Bytes reserved now (metrics and tests). */
  get inFlight(): number {
    return this.total;
  }

  /** Bytes an account holds now (tests). */
  heldByAccount(accountId: string): number {
    return this.byAccount.get(accountId) ?? 0;
  }
}

/** Adds `delta` to `id`'s count, forgetting it at zero (the maps hold only who holds something). */
function add(map: Map<string, number>, id: string, delta: number): void {
  const next = (map.get(id) ?? 0) + delta;
  if (next > 0) map.set(id, next);
  else map.delete(id);
}

const BUDGET = Symbol('holdfast.bodyBudget');
const OWNERS = Symbol('holdfast.bodyOwners');
type WithBudget = IncomingMessage & { [BUDGET]?: BodyBudget; [OWNERS]?: BodyOwners };

/** Middleware: the body reader of every later route takes its bytes from `budget`. */
export function useBodyBudget(budget: BodyBudget): RequestHandler {
  return (req, _res, next) => {
    (req as WithBudget)[BUDGET] = budget;
    next();
  };
}

/**
 * Counts the request's body against `owners`' shares as well (called once the caller is
 * authenticated, before its body is read).
 */
export function setBodyOwners(req: IncomingMessage, owners: BodyOwners): void {
  (req as WithBudget)[OWNERS] = { keyId: owners.keyId, accountId: owners.accountId };
}

/** What one request holds of the budget; everything is given back once, when its answer is finished. */
export interface BodyLease {
  /**
   * Takes `bytes` more; throws (taking nothing) when they do not fit: RateLimitedError (429) over
   * the key's or account's share, BodyBudgetExceededError (503) over the gateway's budget.
   */
  take(bytes: number): void;
}

const NO_LEASE: BodyLease = { take: () => {} };

/**
 * The request's lease on the gateway's body budget, given back when the answer is finished or the
 * connection closes. Without a budget (tests, tools) taking is free.
 */
export function bodyLease(req: IncomingMessage): BodyLease {
  const budget = (req as WithBudget)[BUDGET];
  if (!budget) return NO_LEASE;
  const owners = (req as WithBudget)[OWNERS] ?? null;
  let held = 0;
  let released = false;
  const release = () => {
    if (released) return;
    released = true;
    budget.release(held, owners);
    held = 0;
  };
  const res = (req as IncomingMessage & { res?: { once(e: 'close', f: () => void): void } }).res;
  if (res) res.once('close', release);
  else req.once('close', release);
  return {
    take(bytes: number) {
      if (released || bytes <= 0) return;
      const refusal = budget.reserve(bytes, owners);
      if (refusal === 'gateway') throw new BodyBudgetExceededError();
      if (refusal) throw new RateLimitedError(BODY_BUDGET_RETRY_AFTER_S);
      held += bytes;
    },
  };
}
