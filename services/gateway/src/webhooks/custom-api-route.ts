import type { RequestHandler } from 'express';
import type { CustomerEventReceived } from '@holdfast/contracts';
import {
  checkWebhookBody,
  customApiContentKey,
  dedupKeyForCustomApi,
  duplicateWarning,
  parseCustomApiEvent,
} from '@holdfast/domain';
import { BadRequestError, NotCaughtUpError, NotFoundError } from '@holdfast/platform';
import { principalOf } from '../auth/authenticate.js';
import { AUTH_DETAIL } from '../auth/resolve-principal.js';
import { parseJsonBody, readBody } from '../http/body-reader.js';
import { LIMITS } from '../limits/policy.js';
import type { FirstCallMarker } from './first-call.js';
import type { ResolvedCustomerEvent, WebhookReadSide } from './webhook-read-side.js';
import {
  DEFAULT_PROJECTION_WAIT_MS,
  NOT_CAUGHT_UP_RETRY_AFTER_S,
  requestIdOf,
  SUPPRESSED_ANSWER,
  type WebhooksContext,
} from './webhooks-context.js';
import { ValidationFailedError } from '../http/validation-failed.js';

/** The answer to a custom-api event already applied (spec). */
export const DUPLICATE_ANSWER = Object.freeze({ received: true, duplicate: true });

/**
 * POST /webhooks/custom-api, behind `authenticate` (ingest key as Bearer, or the legacy tile token):
 * 1. 404 when the account's custom integration tile is not connected (the legacy path already
 *    answered it during authentication; this covers the ingest key);
 * 2. 422 when a key it reads cannot be stored (`checkWebhookBody`: too long, a numeric id beyond 2^53);
 *    400 when the free-form body carries no email, phone or external id (alias customer_id);
 * 3. a dedup key (event_type + external_id, else a hash of the body) already applied →
 *    `{received: true, duplicate: true}`, plus `warning` when its content differs from the first
 *    event of the key (a consent change sent that way would otherwise vanish silently);
 * 4. otherwise CustomerEventReceived is appended and the answer is read back from the projector
 *    (read-your-writes): `{received, duplicate: false, customer_id, link_method, is_new}`; when a
 *    concurrent request with the same key won, the answer is the duplicate one; when the projector
 *    has not applied it within the wait, 503 with Retry-After (a retry then finds it applied, or
 *    appends again: the projector keeps only the first of a key).
 * Its first successful call sets the tile's first_call_at.
 */
export function customApiRoute(
  ctx: WebhooksContext,
  readSide: WebhookReadSide,
  firstCall: FirstCallMarker,
): RequestHandler {
  const waitMs = ctx.projectionWaitMs ?? DEFAULT_PROJECTION_WAIT_MS;
  return async (req, res) => {
    const principal = principalOf(res);
    const { accountId } = principal;
    if (principal.method === 'ingest_key') {
      const tile = await ctx.credentials.customIntegrationTile(accountId);
      if (!tile?.connected) throw new NotFoundError(AUTH_DETAIL.noCustomIntegration);
    }
    const body = parseJsonBody(await readBody(req, LIMITS.smallBodyBytes));
    const unstorable = checkWebhookBody('custom-api', body);
    if (unstorable.length > 0) throw new ValidationFailedError(unstorable);
    const parsed = parseCustomApiEvent(body);
    if (!parsed.ok) throw new BadRequestError(parsed.detail);
    const { event } = parsed;
    const suppressed = await ctx.suppressions.check(accountId);
    if (suppressed?.({ externalId: event.external_id, email: event.email, phone: event.phone })) {
      ctx.metrics.rows.inc({ endpoint: 'POST /webhooks/custom-api', outcome: 'suppressed' });
      res.json(SUPPRESSED_ANSWER);
      return;
    }
    const dedupKey = dedupKeyForCustomApi(parsed.event, body);
    const receivedAt = ctx.clock.now();

    const contentKey = customApiContentKey(parsed.event);
    // The spec's answer stays as it is; `warning` is an added field.
    const answerDuplicate = (first: ResolvedCustomerEvent) => {
      const warning = duplicateWarning(first.content_key, contentKey);
      ctx.metrics.customApiDuplicates.inc({ content: warning ? 'differs' : 'same' });
      res.json(warning ? { ...DUPLICATE_ANSWER, warning } : DUPLICATE_ANSWER);
    };

    const applied = await readSide.customerEvent(accountId, dedupKey);
    if (applied) {
      await firstCall.mark(accountId, receivedAt);
      answerDuplicate(applied);
      return;
    }
    const metadata = ctx.events.webhookMetadata({
      accountId,
      requestId: requestIdOf(req.get('x-request-id')),
      keyId: principal.keyId,
      receivedAt,
    });
    const value: CustomerEventReceived = {
      metadata,
      dedup_key: dedupKey,
      event: parsed.event,
      personal: null,
    };
    await (ctx.recordAppender ?? ctx.appender).append(
      await ctx.events.commerceRecords(accountId, 'CustomerEventReceived', [value]),
    );
    await firstCall.mark(accountId, receivedAt);

    const row = await readSide.waitForCustomerEvent(accountId, dedupKey, waitMs);
    if (!row) {
      ctx.logger.warn('custom_api_projection_behind', { account_id: accountId, event_id: metadata.event_id });
      throw new NotCaughtUpError(NOT_CAUGHT_UP_RETRY_AFTER_S);
    }
    if (row.event_id !== metadata.event_id) {
      answerDuplicate(row);
      return;
    }
    res.json({
      received: true,
      duplicate: false,
      customer_id: row.customer_id,
      link_method: row.link_method,
      is_new: row.is_new,
    });
  };
}
