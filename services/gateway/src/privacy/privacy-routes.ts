import type { RequestHandler } from 'express';
import type { SecretsKeyring } from '@holdfast/secrets';
import { validatePersonRequest } from '@holdfast/domain';
import { NotFoundError } from '@holdfast/platform';
import type { SubjectKeyStore } from '@holdfast/privacy';
import {
  erasureView,
  exportView,
  findErasure,
  findExport,
  openExportDocument,
  queueErasure,
  queueExport,
} from '@holdfast/privacy-requests';
import { principalOf } from '../auth/authenticate.js';
import type { GatewayContext } from '../context.js';
import { parseJsonBody, readBody } from '../http/body-reader.js';
import { ValidationFailedError } from '../http/validation-failed.js';
import { LIMITS } from '../limits/policy.js';

export const ERASURE_NOT_FOUND = 'Erasure not found.';
export const EXPORT_NOT_FOUND = 'Export not found.';

/** What the /v1/erasures and /v1/exports routes need beside the gateway's context. */
export interface PrivacyRouteDeps {
  readonly keys: Pick<SubjectKeyStore, 'indexKey'>;
  readonly keyring: () => SecretsKeyring;
}

/** The client's Idempotency-Key header (1 to 200 characters after trimming), else null. */
function idempotencyKeyOf(header: string | undefined): string | null {
  const v = header?.trim();
  return v ? v.slice(0, 200) : null;
}

/**
 * POST /v1/erasures: `{external_id?, email?, phone?, suppress?}` → 202
 * `{erasure_id, status, status_url}` (the same erasure again for the same person while it is queued,
 * running or done less than a day ago, or for a repeated Idempotency-Key). The identifiers are
 * normalised and blind-indexed here; only their indexes are stored (`queueErasure`). 422 when the
 * body names no identifier or a malformed one.
 */
export function erasureRoute(ctx: GatewayContext, deps: PrivacyRouteDeps): RequestHandler {
  return async (req, res) => {
    const principal = principalOf(res);
    const v = validatePersonRequest(parseJsonBody(await readBody(req, LIMITS.smallBodyBytes)), 'erasure');
    if (!v.ok) throw new ValidationFailedError(v.detail);
    const { erasure, created } = await queueErasure(ctx.pool, deps.keys, {
      accountId: principal.accountId,
      request: v.request,
      requestedBy: 'api',
      keyId: principal.keyId,
      idempotencyKey: idempotencyKeyOf(req.get('idempotency-key')),
      now: ctx.clock.now(),
    });
    // Ids only: never the identifiers.
    ctx.logger.info('erasure_requested', {
      account_id: principal.accountId,
      erasure_id: erasure.id,
      created,
      status: erasure.status,
    });
    res.status(202).json({
      erasure_id: erasure.id,
      status: erasure.status,
      status_url: `/v1/erasures/${erasure.id}`,
    });
  };
}

/** GET /v1/erasures/{erasure_id}: this account's erasure only (another's, unknown, non-UUID: 404). */
export function erasureStatusRoute(ctx: GatewayContext): RequestHandler {
  return async (req, res) => {
    const e = await findErasure(ctx.pool, principalOf(res).accountId, String(req.params.erasure_id));
    if (!e) throw new NotFoundError(ERASURE_NOT_FOUND);
    res.json(erasureView(e));
  };
}

/** POST /v1/exports: the same identifiers → 202 `{export_id, status, status_url}`. */
export function exportRoute(ctx: GatewayContext, deps: PrivacyRouteDeps): RequestHandler {
  return async (req, res) => {
    const principal = principalOf(res);
    const v = validatePersonRequest(parseJsonBody(await readBody(req, LIMITS.smallBodyBytes)), 'export');
    if (!v.ok) throw new ValidationFailedError(v.detail);
    const { export: x, created } = await queueExport(ctx.pool, deps.keys, {
      accountId: principal.accountId,
      request: v.request,
      requestedBy: 'api',
      keyId: principal.keyId,
      idempotencyKey: idempotencyKeyOf(req.get('idempotency-key')),
      now: ctx.clock.now(),
    });
    ctx.logger.info('export_requested', { account_id: principal.accountId, export_id: x.id, created });
    res.status(202).json({ export_id: x.id, status: x.status, status_url: `/v1/exports/${x.id}` });
  };
}

/** GET /v1/exports/{export_id}: status, and `download_url` once done (404 once expired). */
export function exportStatusRoute(ctx: GatewayContext): RequestHandler {
  return async (req, res) => {
    const x = await findExport(
      ctx.pool,
      principalOf(res).accountId,
      String(req.params.export_id),
      ctx.clock.now(),
    );
    if (!x) throw new NotFoundError(EXPORT_NOT_FOUND);
    res.json(exportView(x));
  };
}

/** GET /v1/exports/{export_id}/download: the JSON document of a done export (else 404). */
export function exportDownloadRoute(ctx: GatewayContext, deps: PrivacyRouteDeps): RequestHandler {
  return async (req, res) => {
    const doc = await openExportDocument(
      ctx.pool,
      deps.keyring(),
      principalOf(res).accountId,
      String(req.params.export_id),
      ctx.clock.now(),
    );
    if (doc === null) throw new NotFoundError(EXPORT_NOT_FOUND);
    res.set('Cache-Control', 'no-store').json(doc);
  };
}
