import express, { type RequestHandler, type Router } from 'express';
import type { GatewayContext } from '../context.js';
import { noteMount } from '../metrics.js';
import { accountRoute } from './account.js';
import { batchesRoute } from './batches.js';
import { customersRoute } from './customers.js';
import { healthRoute } from './health.js';
import { ordersRoute } from './orders.js';
import { syncRoute, syncStatusRoute } from './sync.js';

type Method = 'get' | 'post' | 'patch';

/** The spec's /ingest/* routes, relative to their mount: one table for /ingest and its /v1 alias. */
export const INGEST_ROUTES: readonly (readonly [Method, string, (ctx: GatewayContext) => RequestHandler])[] =
  [
    ['get', '/health', healthRoute],
    ['post', '/orders', ordersRoute],
    ['post', '/customers', customersRoute],
    ['patch', '/account', accountRoute],
    ['post', '/sync', syncRoute],
    ['get', '/sync/:task_id', syncStatusRoute],
    ['get', '/batches', batchesRoute],
  ];

/**
 * /ingest/*, exactly as the spec defines it: every request under the mount is authenticated first
 * (an unknown /ingest path answers 401 without a key, 404 with one).
 */
export function ingestRouter(ctx: GatewayContext, auth: RequestHandler): Router {
  const router = express.Router();
  router.use(noteMount);
  router.use(auth);
  for (const [method, path, route] of INGEST_ROUTES) router[method](path, route(ctx));
  return router;
}

/**
 * The same routes under /v1/ (issue 24: `POST /v1/orders` is `POST /ingest/orders`), with the same
 * handlers, bodies, limits and authentication. The authentication is per route, not for the whole
 * mount, so the other /v1/ routes (the read routes, and whatever is added beside them) keep theirs.
 */
export function ingestV1Router(ctx: GatewayContext, auth: RequestHandler): Router {
  const router = express.Router();
  for (const [method, path, route] of INGEST_ROUTES) router[method](path, noteMount, auth, route(ctx));
  return router;
}
