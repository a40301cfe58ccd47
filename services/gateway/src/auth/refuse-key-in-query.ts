import type { RequestHandler } from 'express';
import { UnauthorizedError } from '@holdfast/platform';
import { AUTH_DETAIL, secretKeyInQuery } from './resolve-principal.js';

/**
 * Answers 401 (spec: a key in the query string is rejected) when a secret key is in the query string
 * of a route that authenticates no key: /pixel/collect, the loader script, the OpenAPI document,
 * unknown paths. /ingest/*, /webhooks/* and the authenticated /v1/ routes run the stricter
 * `keyInQuery` inside their authentication, where the refusal also counts as a failed authentication
 * and carries the RateLimit headers; an unknown /v1/ path meets {@link refuseAnyKeyInQuery} after them.
 */
export const refuseKeyInQuery: RequestHandler = (req, _res, next) => {
  if (/^\/v1\/openapi\.json$/.test(req.path) || !/^\/(?:ingest|webhooks|v1)(?:\/|$)/.test(req.path))
    refuseAnyKeyInQuery(req, _res, next);
  else next();
};

/** {@link refuseKeyInQuery} without exemptions: mounted under /v1 after its authenticated routes. */
export const refuseAnyKeyInQuery: RequestHandler = (req, _res, next) => {
  if (secretKeyInQuery(req.query)) throw new UnauthorizedError(AUTH_DETAIL.keyInQuery);
  next();
};
