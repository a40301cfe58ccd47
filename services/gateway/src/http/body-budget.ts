import type { IncomingMessage } from 'node:http';
import type { RequestHandler } from 'express';
import { HttpError } from '@holdfast/platform';

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
 * The request-body bytes a gateway holds at once (BODY_BUDGET_BYTES). A body reserves its declared
 * Content-Length before the first byte is read (or each chunk as it arrives when the length is not
 * declared) and gives it back when its answer is finished, so the parsed copy is covered too. Over
 * the budget the request is answered 503 with Retry-After at once: load is shed, memory never runs
 * out (about 30 parallel 32 MiB bodies used to exhaust a gateway).
 *
 * @example
 * const budget = new BodyBudget(256 * 1024 * 1024);
 * if (!budget.reserve(len)) throw new BodyBudgetExceededError();
 */
export class BodyBudget {
  private used = 0;
  constructor(readonly capacity: number) {}

  /** Takes `bytes` if they fit; false (and nothing taken) otherwise. */
  reserve(bytes: number): boolean {
    if (this.used + bytes > this.capacity) return false;
    this.used += bytes;
    return true;
  }

  release(bytes: number): void {
    this.used = Math.max(0, this.used - bytes);
  }

  /** Bytes reserved now (metrics and tests). */
  get inFlight(): number {
    return this.used;
  }
}

const BUDGET = Symbol('holdfast.bodyBudget');
type WithBudget = IncomingMessage & { [BUDGET]?: BodyBudget };

/** Middleware: the body reader of every later route takes its bytes from `budget`. */
export function useBodyBudget(budget: BodyBudget): RequestHandler {
  return (req, _res, next) => {
    (req as WithBudget)[BUDGET] = budget;
    next();
  };
}

/** What one request holds of the budget; everything is given back once, when its answer is finished. */
export interface BodyLease {
  /** Takes `bytes` more; throws BodyBudgetExceededError (taking nothing) when they do not fit. */
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
  let held = 0;
  let released = false;
  const release = () => {
    if (released) return;
    released = true;
    budget.release(held);
    held = 0;
  };
  const res = (req as IncomingMessage & { res?: { once(e: 'close', f: () => void): void } }).res;
  if (res) res.once('close', release);
  else req.once('close', release);
  return {
    take(bytes: number) {
      if (released || bytes <= 0) return;
      if (!budget.reserve(bytes)) throw new BodyBudgetExceededError();
      held += bytes;
    },
  };
}
