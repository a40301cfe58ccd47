import express, { type RequestHandler, type Router } from 'express';
import { isReportName, REPORT_NAMES } from '@holdfast/dashboards';
import { NotFoundError } from '@holdfast/platform';
import { principalOf } from '../auth/authenticate.js';
import type { GatewayContext } from '../context.js';
import { noteMount } from '../metrics.js';
import { sendCachedJson } from '../read-api/etag.js';
import { buildReport } from './build-report.js';
import { ReportStore } from './report-store.js';

/** The `detail` of an unknown report's 404 (pinned by tests). */
export const REPORT_DETAIL = Object.freeze({
  noReport: `No such report (${REPORT_NAMES.join(', ')}).`,
});

/**
 * GET /v1/reports/{name} (docs/read-api.md, "Reports"): one aggregate report of the key's account,
 * behind `auth` (`authenticateRead`, as every /v1/ read), as JSON with an ETag. The account is the
 * key's, never a request field: there is no account id to change in the URL.
 */
export function reportsRouter(ctx: GatewayContext, auth: RequestHandler): Router {
  const store = new ReportStore(ctx.pool, ctx.config.readModelSchema);
  const router = express.Router();
  router.get('/reports/:name', noteMount, auth, async (req, res) => {
    const { accountId } = principalOf(res);
    const name = String(req.params.name);
    if (!isReportName(name)) throw new NotFoundError(REPORT_DETAIL.noReport);
    sendCachedJson(req, res, await buildReport(name, store, accountId, ctx.clock.now()));
  });
  return router;
}
