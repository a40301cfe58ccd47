import type { RequestHandler } from 'express';
import { validateClaimRequest } from '@holdfast/domain';
import { principalOf } from '../auth/authenticate.js';
import type { GatewayContext } from '../context.js';
import { parseJsonBody, readBody } from '../http/body-reader.js';
import { ValidationFailedError } from '../http/validation-failed.js';
import { LIMITS } from '../limits/policy.js';
import type { SendStore } from './send-store.js';

/** The Idempotency-Key a claim page requires (1 to 200 characters after trimming). */
function requiredIdempotencyKey(header: string | undefined): string {
  const v = header?.trim();
  if (!v || v.length > 200)
    throw new ValidationFailedError([
      {
        type: v ? 'string_too_long' : 'missing',
        loc: ['header', 'idempotency-key'],
        msg: v ? 'String should have at most 200 characters' : 'Field required',
      },
    ]);
  return v;
}

/**
 * POST /v1/sends (docs/read-api.md, "Send claim and confirm"): a page of a claim → 201 with its
 * members' tracking ids and links. Ingest keys only (mounted behind the ingest authentication: a
 * read key answers 403 as on every write).
 */
export function claimSendRoute(ctx: GatewayContext, store: SendStore): RequestHandler {
  return async (req, res) => {
    const principal = principalOf(res);
    const idemKey = requiredIdempotencyKey(req.get('idempotency-key'));
    const v = validateClaimRequest(parseJsonBody(await readBody(req, LIMITS.smallBodyBytes)));
    if (!v.ok) throw new ValidationFailedError(v.detail);
    const page = await store.claim(principal.accountId, principal.keyId, idemKey, v.request, ctx.clock.now());
    // Ids and counts only: never an external id (it may be personal).
    ctx.logger.info('send_claimed', {
      account_id: principal.accountId,
      send_id: page.send_id,
      members: page.members.length,
      held_out: page.held_out,
    });
    res.status(201).json(page);
  };
}

/** POST /v1/sends/{send_id}/confirm `{sent_at}` → 200 (the same answer for a repeat). */
export function confirmSendRoute(ctx: GatewayContext, store: SendStore): RequestHandler {
  return async (req, res) => {
    const principal = principalOf(res);
    const body = parseJsonBody(await readBody(req, LIMITS.smallBodyBytes));
    const confirmed = await store.confirm(
      principal.accountId,
      String(req.params.send_id),
      body,
      ctx.clock.now(),
    );
    ctx.logger.info('send_confirmed', {
      account_id: principal.accountId,
      send_id: confirmed.send_id,
      members: confirmed.members,
    });
    res.json(confirmed);
  };
}
