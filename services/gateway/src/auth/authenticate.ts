import type { RequestHandler, Response } from 'express';
import { HttpError } from '@holdfast/platform';
import type { Clock } from '../clock.js';
import { setBodyOwners } from '../http/body-budget.js';
import { rateLimitAddress } from '../limits/client-ip.js';
import type { Limiter } from '../limits/limiter.js';
import type { CredentialStore } from './credential-store.js';
import type { LastUsedTracker } from './last-used.js';
import { resolvePrincipal, type Principal } from './resolve-principal.js';

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
    // An IP over its failed-authentication limit is refused before any key is looked up.
    const blocked = await deps.limiter.failedAuthBlocked(rateLimitAddress(req.ip), deps.clock.now(), res);
    if (blocked) throw blocked;
    let principal: Principal;
    try {
      principal = await resolvePrincipal(
        {
          authorization: req.get('authorization'),
          accountHeader: req.get('x-service-account-id'),
          query: req.query,
        },
        deps.credentials,
        deps.clock.now(),
      );
    } catch (err) {
      if (err instanceof HttpError && AUTH_FAILURES.has(err.status)) {
        throw (await deps.limiter.failedAuth(rateLimitAddress(req.ip), deps.clock.now(), res)) ?? err;
      }
      throw err;
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

/** The authenticated caller of a request that went through `authenticate`. */
export function principalOf(res: Response): Principal {
  const p = res.locals.principal as Principal | undefined;
  if (!p) throw new Error('route is not behind authenticate()');
  return p;
}
