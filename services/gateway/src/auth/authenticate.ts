import type { Request, RequestHandler, Response } from 'express';
import { ForbiddenError, HttpError, UnauthorizedError } from '@holdfast/platform';
import type { Clock } from '../clock.js';
import { setBodyOwners } from '../http/body-budget.js';
import { rateLimitAddress } from '../limits/client-ip.js';
import type { Limiter } from '../limits/limiter.js';
import type { CredentialStore } from './credential-store.js';
import type { LastUsedTracker } from './last-used.js';
import { AUTH_DETAIL, resolvePrincipal, type Principal } from './resolve-principal.js';

// Failures that count against the per-IP limit (the 400 and 404 of the legacy path are failed
// authentications too: they are what an enumeration of account ids would produce).
const AUTH_FAILURES = new Set([400, 401, 404]);

export interface AuthDeps {
  readonly credentials: CredentialStore;
  readonly limiter: Limiter;
  readonly lastUsed: LastUsedTracker;
  readonly clock: Clock;
}

/**
 * Express middleware for /ingest/*: refuses with 429 an IP (IPv6: a /64) that already failed to
 * authenticate more than 30 times this minute, before any key lookup (`failedAuthBlocked`: one
 * read); authenticates (see `resolvePrincipal`), turns the 31st failure within a minute into a 429, then counts the request against its key's
 * 600 per minute. Every answer carries the RateLimit-Policy and RateLimit headers of the limit that
 * counted it (`per-key`, `per-account` for the tile token, `failed-auth` for a failure).
 * Only headers and the query string are read: the body is still unread when this answers.
 */
export function authenticate(deps: AuthDeps): RequestHandler {
  return async (req, res, next) => {
    const principal = await principalOrFailure(req, res, deps);
    if (principal.method === 'read_key') {
      // A valid key without the right: 403, counted against the key's read budget (docs/read-api.md).
      await deps.limiter.read(principal.keyId!, deps.clock.now(), res);
      throw new ForbiddenError(AUTH_DETAIL.readKeyOnIngest);
    }
    const policy = principal.method === 'ingest_key' ? 'per-key' : 'per-account';
    await deps.limiter.request(principal.rateBucket, deps.clock.now(), res, policy);
    if (principal.keyId !== null) deps.lastUsed.touch(principal.keyId);
    res.locals.principal = principal;
    // Its body (read later by the route) counts against the key's and the account's shares too.
    setBodyOwners(req, principal);
    next();
  };
}

async function principalOrFailure(
  req: Request,
  res: Response,
  deps: AuthDeps,
  outbound = false,
): Promise<Principal> {
  // An IP over its failed-authentication limit is refused before any key is looked up.
  const blocked = await deps.limiter.failedAuthBlocked(rateLimitAddress(req.ip), deps.clock.now(), res);
  if (blocked) throw blocked;
  try {
    return await resolvePrincipal(
      {
        authorization: req.get('authorization'),
        accountHeader: req.get('x-service-account-id'),
        query: req.query,
      },
      deps.credentials,
      deps.clock.now(),
      outbound,
    );
  } catch (err) {
    if (err instanceof HttpError && AUTH_FAILURES.has(err.status)) {
      throw (await deps.limiter.failedAuth(rateLimitAddress(req.ip), deps.clock.now(), res)) ?? err;
    }
    throw err;
  }
}

/**
 * Express middleware for the /v1/ read routes: the same checks and failure counting as
 * `authenticate`, then: a read key (rk_live_) reads; an ingest key reads only when its account allows
 * it (`holdfast accounts set-read-with-ingest-key`, off by default), else 403; the legacy tile token
 * never reads (401, a failed authentication). Each read counts against the key's own read budget of
 * 1,200 per minute (RateLimit policy `read`), apart from its ingest budget.
 */
export function authenticateRead(deps: AuthDeps): RequestHandler {
  return async (req, res, next) => {
    const cached = await cachedReader(req, deps);
    let principal: Principal;
    if (cached !== null) {
      // The key came from memory, so the failed-authentication peek and the read count go in one
      // round trip; the peek still decides first (a blocked IP gets its 429, nothing is counted).
      await deps.limiter.readUnlessBlocked(rateLimitAddress(req.ip), cached.keyId!, deps.clock.now(), res);
      principal = cached;
    } else {
      principal = await principalOrFailure(req, res, deps);
      if (principal.keyId === null) {
        const err = new UnauthorizedError(AUTH_DETAIL.readNeedsKey);
        throw (await deps.limiter.failedAuth(rateLimitAddress(req.ip), deps.clock.now(), res)) ?? err;
      }
      if (principal.method === 'ingest_key' && !principal.readWithIngestKey)
        throw new ForbiddenError(AUTH_DETAIL.ingestKeyCannotRead);
      await deps.limiter.read(principal.keyId, deps.clock.now(), res);
    }
    deps.lastUsed.touch(principal.keyId!);
    res.locals.principal = principal;
    next();
  };
}

/**
 * The caller of a read when the credential cache alone shows a key that may read (no database
 * read), else null: then the full path (peek, lookup, failure counting) answers in the usual order.
 * A blocked IP costs one round trip either way, so its answer's timing tells nothing about the key.
 */
async function cachedReader(req: Request, deps: AuthDeps): Promise<Principal | null> {
  try {
    const p = await resolvePrincipal(
      {
        authorization: req.get('authorization'),
        accountHeader: req.get('x-service-account-id'),
        query: req.query,
      },
      deps.credentials.cacheOnly(),
      deps.clock.now(),
    );
    const reads = p.method === 'read_key' || (p.method === 'ingest_key' && p.readWithIngestKey);
    return p.keyId !== null && reads ? p : null;
  } catch {
    // Not cached, or a failure: the full path gives the spec's answer and counts it.
    return null;
  }
}

/**
 * Express middleware for /v1/webhooks (docs/webhooks.md): the same checks and failure counting as
 * `authenticate`, then only an outbound key (sk_live_, the spec's key "for outbound webhook
 * subscriptions") manages webhooks: an ingest or read key is a valid credential without the right
 * (403), the legacy tile token none (401). Each request counts against the key's 600 per minute
 * (policy `per-key`).
 */
export function authenticateOutbound(deps: AuthDeps): RequestHandler {
  return async (req, res, next) => {
    const principal = await principalOrFailure(req, res, deps, true);
    if (principal.keyId === null) {
      const err = new UnauthorizedError(AUTH_DETAIL.webhooksNeedOutboundKey);
      throw (await deps.limiter.failedAuth(rateLimitAddress(req.ip), deps.clock.now(), res)) ?? err;
    }
    if (principal.method !== 'outbound_key') throw new ForbiddenError(AUTH_DETAIL.webhooksNeedOutboundKey);
    await deps.limiter.request(principal.rateBucket, deps.clock.now(), res, 'per-key');
    deps.lastUsed.touch(principal.keyId);
    res.locals.principal = principal;
    setBodyOwners(req, principal);
    next();
  };
}

/** The authenticated caller of a request that went through `authenticate`. */
export function principalOf(res: Response): Principal {
  const p = res.locals.principal as Principal | undefined;
  if (!p) throw new Error('route is not behind authenticate()');
  return p;
}
