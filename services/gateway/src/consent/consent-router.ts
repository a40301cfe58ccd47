import { Router } from 'express';
import type { Kysely } from 'kysely';
import type { Database, Pool } from '@holdfast/postgres';
import type { InboundKeyring, UnsubscribeKeys } from '@holdfast/secrets';
import type { Appender } from '@holdfast/kafka';
import type { Logger } from '@holdfast/platform';
import type { Clock } from '../clock.js';
import type { EventFactory } from '../ingest/event-factory.js';
import type { Limiter } from '../limits/limiter.js';
import { WebhookReadSide } from '../webhooks/webhook-read-side.js';
import { ConsentReadSide } from './consent-read-side.js';
import { smsInboundRoute } from './sms-inbound-route.js';
import { unsubscribePage, unsubscribeAction } from './unsubscribe-routes.js';

/** What the consent routes use. */
export interface ConsentContext {
  readonly pool: Pool;
  readonly db: Kysely<Database>;
  readonly appender: Appender;
  readonly events: EventFactory;
  readonly clock: Clock;
  readonly logger: Logger;
  /** Verifies unsubscribe tokens (HOLDFAST_UNSUBSCRIBE_KEYS). */
  readonly unsubscribeKeys: UnsubscribeKeys;
  /** Opens the SMS providers' auth tokens sealed for the inbound webhook (HOLDFAST_INBOUND_KEYS), nothing else. */
  readonly inboundKeys: InboundKeyring;
  /** The shared rate counters: the inbound webhook's per-account and failed-signature-per-IP limits. */
  readonly limiter: Limiter;
  /** HOLDFAST_PUBLIC_URL: the URL the SMS provider signs over (null: the request's own host). */
  readonly publicUrl: string | null;
  readonly consentReadSide: ConsentReadSide;
  readonly webhookReadSide: WebhookReadSide;
  /** How long a withdrawal waits for the projector before answering anyway (it is in the log). */
  readonly projectionWaitMs: number;
}

/**
 * Routes beside the spec's (docs/campaigns.md, "Unsubscribe and STOP"): GET and POST
 * /unsubscribe/:token, POST /providers/sms/:account_id/inbound. Mount before any body parser.
 *
 * @example
 * app.use(createConsentRouter({ ...ctx, unsubscribeKeys, inboundKeys, limiter, publicUrl, readModelSchema }));
 */
export function createConsentRouter(
  ctx: Omit<ConsentContext, 'consentReadSide' | 'webhookReadSide' | 'projectionWaitMs'> & {
    readonly readModelSchema: string;
    readonly projectionWaitMs?: number;
  },
): Router {
  const full: ConsentContext = {
    ...ctx,
    consentReadSide: new ConsentReadSide(ctx.pool, ctx.readModelSchema),
    webhookReadSide: new WebhookReadSide(ctx.pool, ctx.readModelSchema),
    projectionWaitMs: ctx.projectionWaitMs ?? 3_000,
  };
  const router = Router();
  router.get('/unsubscribe/:token', unsubscribePage(ctx.unsubscribeKeys));
  router.post('/unsubscribe/:token', unsubscribeAction(full));
  router.post('/providers/sms/:account_id/inbound', smsInboundRoute(full));
  return router;
}
