import { Router } from 'express';
import { authenticate } from '../auth/authenticate.js';
import { customApiRoute } from './custom-api-route.js';
import { FirstCallMarker } from './first-call.js';
import { WebhookReadSide } from './webhook-read-side.js';
import type { WebhooksContext } from './webhooks-context.js';
import { zeroPartyRoute } from './zero-party-route.js';

/**
 * The inbound webhooks (spec "Endpoints"): POST /webhooks/custom-api and POST /webhooks/zero-party.
 * Mount it before any body parser: the routes read their own bodies with the byte limit.
 *
 * @example
 * app.use(createWebhooksRouter({ ...ctx, credentials, limiter, lastUsed }));
 */
export function createWebhooksRouter(ctx: WebhooksContext): Router {
  const readSide = new WebhookReadSide(ctx.pool, ctx.config.readModelSchema);
  const router = Router();
  router.post(
    '/webhooks/custom-api',
    authenticate(ctx),
    customApiRoute(ctx, readSide, new FirstCallMarker(ctx.db)),
  );
  router.post('/webhooks/zero-party', zeroPartyRoute(ctx, readSide));
  return router;
}

export type { WebhooksContext } from './webhooks-context.js';
export { DEFAULT_PROJECTION_WAIT_MS } from './webhooks-context.js';
