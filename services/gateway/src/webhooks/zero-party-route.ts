import type { RequestHandler } from 'express';
import type { ZeroPartySubmitted } from '@holdfast/contracts';
import { checkWebhookBody, dedupKeyForZeroParty, parseZeroPartySubmission } from '@holdfast/domain';
import { BadRequestError, HttpError } from '@holdfast/platform';
import { setBodyOwners } from '../http/body-budget.js';
import { parseJsonBody, readBody } from '../http/body-reader.js';
import { rateLimitAddress } from '../limits/client-ip.js';
import { LIMITS } from '../limits/policy.js';
import type { WebhookReadSide } from './webhook-read-side.js';
import { requestIdOf, type WebhooksContext } from './webhooks-context.js';
import { resolveZeroPartyAccount } from './zero-party-auth.js';
import { ValidationFailedError } from '../http/validation-failed.js';

// Failures that count against the per-IP limit of failed authentications (as on the legacy path).
const AUTH_FAILURES = new Set([400, 401, 404]);

/**
 * POST /webhooks/zero-party. Authentication is the zero-party tile token in the query string only
 * (see `resolveZeroPartyAccount`); the 31st failure of an IP within a minute is a 429, and calls
 * count against 600 per minute per account (the spec's rate for the legacy token).
 *
 * 422 when a key it reads cannot be stored (`checkWebhookBody`); 400 without email or an external id (external_customer_id, aliases external_id and customer_id).
 * Deduplicated on content (`dedupKeyForZeroParty`): a submission whose key the projector already
 * applied answers `{received: true, duplicate: true}`; otherwise ZeroPartySubmitted is appended and
 * the answer is `{received: true, duplicate: false}` at once. The projector stores it, links it to the
 * customer and keeps only the first of a key, so a resubmission racing its own projection is still
 * stored once.
 */
export function zeroPartyRoute(ctx: WebhooksContext, readSide: WebhookReadSide): RequestHandler {
  return async (req, res) => {
    const blocked = await ctx.limiter.failedAuthBlocked(rateLimitAddress(req.ip), ctx.clock.now(), res);
    if (blocked) throw blocked;
    let accountId: string;
    try {
      accountId = await resolveZeroPartyAccount(ctx.db, {
        authorization: req.get('authorization'),
        query: req.query,
      });
    } catch (err) {
      if (err instanceof HttpError && AUTH_FAILURES.has(err.status))
        throw (await ctx.limiter.failedAuth(rateLimitAddress(req.ip), ctx.clock.now(), res)) ?? err;
      throw err;
    }
    await ctx.limiter.request(`zp:${accountId}`, ctx.clock.now(), res, 'per-account');
    setBodyOwners(req, { keyId: null, accountId });

    const body = parseJsonBody(await readBody(req, LIMITS.smallBodyBytes));
    const unstorable = checkWebhookBody('zero-party', body);
    if (unstorable.length > 0) throw new ValidationFailedError(unstorable);
    const parsed = parseZeroPartySubmission(body);
    if (!parsed.ok) throw new BadRequestError(parsed.detail);
    const { submission } = parsed;
    const dedupKey = dedupKeyForZeroParty(submission);
    if (await readSide.zeroPartyApplied(accountId, dedupKey)) {
      res.json({ received: true, duplicate: true });
      return;
    }
    const metadata = ctx.events.webhookMetadata({
      accountId,
      requestId: requestIdOf(req.get('x-request-id')),
      keyId: null,
      receivedAt: ctx.clock.now(),
    });
    const value: ZeroPartySubmitted = {
      metadata,
      dedup_key: dedupKey,
      email: submission.email,
      external_customer_id: submission.external_customer_id,
      interests: submission.interests,
      attributes_json: submission.attributes === null ? null : JSON.stringify(submission.attributes),
      source_label: submission.source_label,
      quiz_version: submission.quiz_version,
      completed_at: submission.completed_at,
    };
    await (ctx.recordAppender ?? ctx.appender).append([
      ctx.events.record('holdfast.commerce', 'ZeroPartySubmitted', value),
    ]);
    res.json({ received: true, duplicate: false });
  };
}
