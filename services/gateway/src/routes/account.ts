import type { RequestHandler } from 'express';
import type { AccountSettingsChanged } from '@holdfast/contracts';
import type { SendSettingsChanges } from '@holdfast/control-plane';
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

/**
 * Appends the timezone changes the console queued (control.settings_outbox, relayed by
 * `startSettingsOutboxRelay`) as the AccountSettingsChanged events PATCH /ingest/account appends: no
 * ingest key, batch or request made them, so those are null; the outbox row's id is the event id and
 * the moment of the change its received_at.
 */
export function settingsChangeSender(ctx: Pick<GatewayContext, 'events' | 'appender'>): SendSettingsChanges {
  return (changes) =>
    ctx.appender.append(
      changes.map((c) => {
        const value: AccountSettingsChanged = {
          metadata: {
            account_id: c.accountId,
            event_id: c.id,
            batch_id: null,
            request_id: null,
            key_id: null,
            received_at: c.requestedAt.toISOString(),
          },
          store_timezone: c.storeTimezone,
        };
        return ctx.events.record('holdfast.account-settings', 'AccountSettingsChanged', value);
      }),
    );
}
