import type { RequestHandler } from 'express';
import { UnauthorizedError } from '@holdfast/platform';
import { AUTH_DETAIL, secretKeyInQuery } from './resolve-principal.js';

/**
 * Answers 401 (spec: a key in the query string is rejected) when a secret key is in the query string
 * of a route that authenticates no key: /pixel/collect, the loader script, the OpenAPI document,
 * unknown paths. /ingest/* and /webhooks/* run the stricter `keyInQuery` inside their authentication,
 * where the refusal also counts as a failed authentication and carries the RateLimit headers.
 */
export const refuseKeyInQuery: RequestHandler = (req, _res, next) => {
  if (!/^\/(?:ingest|webhooks)(?:\/|$)/.test(req.path) && secretKeyInQuery(req.query))
    throw new UnauthorizedError(AUTH_DETAIL.keyInQuery);
  next();
};
