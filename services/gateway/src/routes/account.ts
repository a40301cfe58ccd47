import type { RequestHandler } from 'express';
import type { AccountSettingsChanged } from '@holdfast/contracts';
import { validateAccountSettings } from '@holdfast/domain';
import type { GatewayContext } from '../context.js';
import { parseJsonBody, readBody } from '../http/body-reader.js';
import { ingestRoute } from '../ingest/ingest-route.js';
import { LIMITS } from '../limits/policy.js';
import { ValidationFailedError } from '../http/validation-failed.js';
import { EMPTY_BATCH_SUMMARY } from '../ingest/batch-record.js';

/**
 * PATCH /ingest/account: `{store_timezone}` must be an IANA name (CST, or a missing field, is a 422).
 * Appends AccountSettingsChanged; the projector stores it and GET /ingest/health echoes it.
 * Answers `{ok: true, store_timezone}`.
 */
export function accountRoute(ctx: GatewayContext): RequestHandler {
  return ingestRoute(ctx, 'PATCH /ingest/account', async (call) => {
    const body = parseJsonBody(await readBody(call.req, LIMITS.smallBodyBytes));
    call.note({ received: 1 });
    const valid = validateAccountSettings(body);
    if (!valid.ok) throw new ValidationFailedError(valid.detail);
    const { store_timezone } = valid.settings;
    const value: AccountSettingsChanged = { metadata: ctx.events.metadata(call.meta), store_timezone };
    return {
      body: { ok: true, store_timezone },
      records: [ctx.events.record('holdfast.account-settings', 'AccountSettingsChanged', value)],
      summary: { ...EMPTY_BATCH_SUMMARY, received: 1, accepted: 1 },
    };
  });
}
