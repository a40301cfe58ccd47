import { Router } from 'express';
import { collectRoute } from './collect-route.js';
import { preflight } from './cors.js';
import { loaderScriptRoute } from './loader-script.js';
import type { PixelContext } from './pixel-context.js';
import { PixelKeyDirectory } from './pixel-keys.js';
import { PixelLimiter } from './pixel-limits.js';

/**
 * The browser surface: OPTIONS and POST /pixel/collect, GET /pixel/v1/service-pixel.js. Mount it
 * before any body parser: the collector reads its own body with the 48 KB limit.
 *
 * @example
 * app.use(createPixelRouter({ ...ctx, rateCounter: new RateCounter(ctx.pool) }));
 */
export function createPixelRouter(ctx: PixelContext): Router {
  const keys = new PixelKeyDirectory(ctx.pool, Math.min(ctx.pixelKeyCacheMs ?? 1_000, 1_000));
  const router = Router();
  router.options('/pixel/collect', preflight(keys));
  router.post('/pixel/collect', collectRoute(ctx, keys, new PixelLimiter(ctx.rateCounter)));
  router.get('/pixel/v1/service-pixel.js', loaderScriptRoute());
  return router;
}

export type { PixelContext } from './pixel-context.js';
export { buildLoaderScript } from './loader-script.js';
