import type { RequestHandler } from 'express';
import { batchRecordsKeptSince } from '@holdfast/domain';
import { principalOf } from '../auth/authenticate.js';
import type { GatewayContext } from '../context.js';
import { parseIntParam } from '../http/query.js';
import { LIMITS } from '../limits/policy.js';

/**
 * GET /ingest/batches?limit=1..200 (default 50; anything else is a 422): `{batches: [...]}`, the
 * account's most recent batch records, newest first, from read_models.ingest_batches. Records older
 * than 90 days are never listed (and are purged by the projector).
 */
export function batchesRoute(ctx: GatewayContext): RequestHandler {
  return async (req, res) => {
    const limit = parseIntParam(req.query, 'limit', {
      min: 1,
      max: LIMITS.batchesMax,
      fallback: LIMITS.batchesDefault,
    });
    const since = batchRecordsKeptSince(ctx.clock.now());
    const batches = await ctx.readModels.recentBatches(principalOf(res).accountId, limit, since);
    res.json({ batches });
  };
}
