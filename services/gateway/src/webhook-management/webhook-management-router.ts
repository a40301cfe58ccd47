import express, { type Request, type RequestHandler, type Response, type Router } from 'express';
import {
  ControlPlaneError,
  createWebhookSubscription,
  disableWebhookSubscription,
  listWebhookSubscriptions,
  rotateWebhookSecret,
} from '@holdfast/control-plane';
import { listDeliveries, redeliver } from '@holdfast/webhook-deliveries';
import type { SecretSealer } from '@holdfast/secrets';
import { HttpError, NotFoundError } from '@holdfast/platform';
import { principalOf } from '../auth/authenticate.js';
import type { GatewayContext } from '../context.js';
import { parseJsonBody, readBody } from '../http/body-reader.js';
import { LIMITS } from '../limits/policy.js';
import { noteMount } from '../metrics.js';
import { deliveryAnswer, webhookAnswer } from './webhook-answers.js';
import { isId, parseDeliveryQuery, parseNewWebhook, parseRotation } from './webhook-params.js';

/** The `detail` of the webhook routes' refusals (pinned by tests). */
export const WEBHOOK_DETAIL = Object.freeze({
  noSubscription: 'No webhook subscription with this id.',
  noDelivery: 'No delivery with this id for this subscription.',
  notSealable:
    'Webhook subscriptions cannot be created or rotated on this gateway: HOLDFAST_WEBHOOK_SEAL_KEY is not set (holdfast secrets webhook-seal-key).',
});

/** PostgreSQL's "undefined table": the dispatcher's schema, before any dispatcher started. */
const noDeliveryLog = (err: unknown): boolean => (err as { code?: string }).code === '42P01';

/** The answer a control-plane refusal gets: another account's id is a 404, never a 403. */
function httpError(err: unknown, notFound: string): unknown {
  if (!(err instanceof ControlPlaneError)) return err;
  if (err.code === 'not_found') return new NotFoundError(notFound);
  if (err.code === 'conflict')
    return new HttpError(409, err.message.replace(/^delivery \S+ is /, 'The delivery is '));
  return err;
}

/** Secrets are shown once: such an answer is never stored by any cache. */
function sendSecret(res: Response, status: number, body: unknown): void {
  res.set('Cache-Control', 'no-store');
  res.status(status).json(body);
}

/**
 * /v1/webhooks (docs/webhooks.md, "Managing subscriptions over HTTP"), each behind `auth`
 * (`authenticateOutbound`: an sk_live_ key). Every statement is scoped to the key's account (the
 * shared functions of @holdfast/control-plane and @holdfast/webhook-deliveries with `accountId`), so
 * another account's subscription or delivery id is a 404:
 *
 * - POST /v1/webhooks: create (201, the whsec_ secret shown once, sealed to the dispatcher's key);
 * - GET /v1/webhooks, GET /v1/webhooks/{id}: the account's active subscriptions;
 * - POST /v1/webhooks/{id}/rotate-secret: a new secret, shown once; the old one signs for the grace;
 * - DELETE /v1/webhooks/{id}: no more deliveries (204);
 * - GET /v1/webhooks/{id}/deliveries: deliveries with their attempts, newest first;
 * - POST /v1/webhooks/{id}/deliveries/{delivery_id}/redeliver: one more attempt of a failed one (202).
 */
export function webhookManagementRouter(ctx: GatewayContext, auth: RequestHandler): Router {
  const router = express.Router();
  const route = (method: 'get' | 'post' | 'delete', path: string, handler: RequestHandler) =>
    router[method](path, noteMount, auth, handler);
  const sealer = (): SecretSealer => {
    if (!ctx.config.webhookSealKey) throw new HttpError(503, WEBHOOK_DETAIL.notSealable);
    return ctx.config.webhookSealKey;
  };
  const subscriptionId = (req: Request): string => {
    const id = String(req.params.id);
    if (!isId(id)) throw new NotFoundError(WEBHOOK_DETAIL.noSubscription);
    return id;
  };
  const body = async (req: Request): Promise<unknown> =>
    parseJsonBody(await readBody(req, LIMITS.smallBodyBytes));

  route('post', '/webhooks', async (req, res) => {
    const { accountId } = principalOf(res);
    const w = parseNewWebhook(await body(req), ctx.config.outbound);
    const created = await createWebhookSubscription(ctx.db, accountId, w.url, sealer(), w.eventTypes);
    ctx.logger.info('webhook_subscription_created', { account_id: accountId, subscription_id: created.id });
    sendSecret(res, 201, { ...webhookAnswer({ ...created, url: w.url }), secret: created.secret });
  });

  route('get', '/webhooks', async (_req, res) => {
    const { accountId } = principalOf(res);
    const rows = await listWebhookSubscriptions(ctx.db, accountId, { active: true });
    res.set('Cache-Control', 'private, no-cache').json({ webhooks: rows.map(webhookAnswer) });
  });

  route('get', '/webhooks/:id', async (req, res) => {
    const { accountId } = principalOf(res);
    const [row] = await listWebhookSubscriptions(ctx.db, accountId, {
      active: true,
      id: subscriptionId(req),
    });
    if (!row) throw new NotFoundError(WEBHOOK_DETAIL.noSubscription);
    res.set('Cache-Control', 'private, no-cache').json(webhookAnswer(row));
  });

  route('post', '/webhooks/:id/rotate-secret', async (req, res) => {
    const { accountId } = principalOf(res);
    const id = subscriptionId(req);
    const { graceSeconds } = parseRotation(await body(req));
    const r = await rotateWebhookSecret(ctx.db, id, graceSeconds, sealer(), ctx.clock.now(), accountId).catch(
      (err: unknown) => {
        throw httpError(err, WEBHOOK_DETAIL.noSubscription);
      },
    );
    ctx.logger.info('webhook_secret_rotated', { account_id: accountId, subscription_id: id });
    sendSecret(res, 200, {
      id,
      secret: r.secret,
      previous_secret_expires_at: r.previousExpiresAt.toISOString(),
    });
  });

  route('delete', '/webhooks/:id', async (req, res) => {
    const { accountId } = principalOf(res);
    const id = subscriptionId(req);
    await disableWebhookSubscription(ctx.db, id, ctx.clock.now(), accountId).catch((err: unknown) => {
      throw httpError(err, WEBHOOK_DETAIL.noSubscription);
    });
    ctx.logger.info('webhook_subscription_removed', { account_id: accountId, subscription_id: id });
    res.status(204).end();
  });

  route('get', '/webhooks/:id/deliveries', async (req, res) => {
    const { accountId } = principalOf(res);
    const id = subscriptionId(req);
    const q = parseDeliveryQuery(req.query);
    const rows = await listDeliveries(ctx.db, id, { ...q, accountId }).catch(async (err: unknown) => {
      if (!noDeliveryLog(err)) throw httpError(err, WEBHOOK_DETAIL.noSubscription);
      // No dispatcher has run yet: no deliveries, but still a 404 for what is not the account's.
      const [mine] = await listWebhookSubscriptions(ctx.db, accountId, { active: true, id });
      if (!mine) throw new NotFoundError(WEBHOOK_DETAIL.noSubscription);
      return [];
    });
    res.set('Cache-Control', 'private, no-cache').json({ deliveries: rows.map(deliveryAnswer) });
  });

  route('post', '/webhooks/:id/deliveries/:delivery_id/redeliver', async (req, res) => {
    const { accountId } = principalOf(res);
    const id = subscriptionId(req);
    const deliveryId = String(req.params.delivery_id);
    if (!isId(deliveryId)) throw new NotFoundError(WEBHOOK_DETAIL.noDelivery);
    const subscriptionMissing = async () =>
      (await listWebhookSubscriptions(ctx.db, accountId, { active: true, id })).length === 0;
    await redeliver(ctx.db, { subscriptionId: id, deliveryId, accountId }, ctx.clock.now()).catch(
      async (err: unknown) => {
        if (noDeliveryLog(err) || (err instanceof ControlPlaneError && err.code === 'not_found'))
          throw new NotFoundError(
            (await subscriptionMissing()) ? WEBHOOK_DETAIL.noSubscription : WEBHOOK_DETAIL.noDelivery,
          );
        throw httpError(err, WEBHOOK_DETAIL.noDelivery);
      },
    );
    res.status(202).json({ delivery_id: deliveryId, status: 'pending' });
  });

  return router;
}
