import express, { type RequestHandler, type Router } from 'express';
import { isCampaignType } from '@holdfast/domain';
import { NotFoundError } from '@holdfast/platform';
import { principalOf } from '../auth/authenticate.js';
import type { GatewayContext } from '../context.js';
import { noteMount } from '../metrics.js';
import { liftAnswer, memberAnswer, page } from './answers.js';
import { encodeCursor } from './cursor.js';
import { sendCachedJson, sendCachedText } from './etag.js';
import { parseCustomerFilter, parsePage } from './read-params.js';
import { ReadStore } from './read-store.js';

/** The `detail` of the read routes' 404s (pinned by tests). */
export const READ_DETAIL = Object.freeze({
  noCustomer: 'No customer with this external id.',
  noCampaignType: 'No such campaign type (win_back, replenishment, vip).',
});

/**
 * The read routes of /v1/ (docs/read-api.md), each behind `auth` (`authenticateRead`): every read is
 * the key's account's, answered as JSON with an ETag (If-None-Match: 304).
 *
 * - GET /v1/customers/{external_id}: profile and scores;
 * - GET /v1/customers: filtered, keyset-paginated list;
 * - GET /v1/holdout: the current holdout members, paginated;
 * - GET /v1/audiences/{campaign_type}: who the audience rule puts in that type now, paginated;
 * - GET /v1/lift: lift reports per type and month.
 */
export function readApiRouter(ctx: GatewayContext, auth: RequestHandler): Router {
  const store = new ReadStore(ctx.pool, ctx.config.readModelSchema);
  const router = express.Router();
  const read = (path: string, handler: RequestHandler) => router.get(path, noteMount, auth, handler);

  read('/customers/:external_id', async (req, res) => {
    const { accountId } = principalOf(res);
    const customer = await store.customer(accountId, String(req.params.external_id));
    if (customer === null) throw new NotFoundError(READ_DETAIL.noCustomer);
    sendCachedText(req, res, customer);
  });

  read('/customers', async (req, res) => {
    const { accountId } = principalOf(res);
    const filter = parseCustomerFilter(req.query);
    const p = parsePage(req.query);
    const { items, lastId } = await store.customers(accountId, filter, p);
    // Spliced as text: the items are PostgreSQL's JSON, never parsed here (read-store.ts).
    const next = lastId === null ? 'null' : JSON.stringify(encodeCursor(lastId));
    sendCachedText(req, res, `{"customers":${items},"next_cursor":${next}}`);
  });

  read('/holdout', async (req, res) => {
    const { accountId } = principalOf(res);
    const p = parsePage(req.query);
    const [rows, scoredAt] = await Promise.all([store.holdout(accountId, p), store.scoredAt(accountId)]);
    const { items, next_cursor } = page(rows, p.limit, (r) => r.customer_id, memberAnswer);
    sendCachedJson(req, res, { members: items, next_cursor, scored_at: scoredAt && scoredAt.toISOString() });
  });

  read('/audiences/:campaign_type', async (req, res) => {
    const { accountId } = principalOf(res);
    const type = String(req.params.campaign_type);
    if (!isCampaignType(type)) throw new NotFoundError(READ_DETAIL.noCampaignType);
    const p = parsePage(req.query);
    const [rows, scoredAt] = await Promise.all([
      store.audience(accountId, type, p),
      store.scoredAt(accountId),
    ]);
    const { items, next_cursor } = page(rows, p.limit, (r) => r.customer_id, memberAnswer);
    sendCachedJson(req, res, {
      campaign_type: type,
      members: items,
      next_cursor,
      scored_at: scoredAt && scoredAt.toISOString(),
    });
  });

  read('/lift', async (req, res) => {
    const { accountId } = principalOf(res);
    const raw = typeof req.query.campaign_type === 'string' ? req.query.campaign_type : null;
    if (raw !== null && !isCampaignType(raw)) throw new NotFoundError(READ_DETAIL.noCampaignType);
    const [rows, currency] = await Promise.all([
      store.lift(accountId, raw),
      store.reportingCurrency(accountId),
    ]);
    sendCachedJson(req, res, { reports: rows.map((r) => liftAnswer(r, currency)) });
  });

  return router;
}
