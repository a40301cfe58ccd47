import { randomUUID } from 'node:crypto';
import type { RequestHandler } from 'express';
import type { PixelEventCollected } from '@holdfast/contracts';
import { filterPixelEvents, validateCollectorRequest, type NormalizedPixelEvent } from '@holdfast/domain';
import { ForbiddenError, ValidationFailedError } from '@holdfast/platform';
import { parseJsonBody, readBody } from '../http/body-reader.js';
import { allowOrigin } from './cors.js';
import type { PixelContext } from './pixel-context.js';
import { normalizeRequestOrigin, type PixelKeyDirectory, type PixelKeyRecord } from './pixel-keys.js';
import { PIXEL_LIMITS, type PixelLimiter } from './pixel-limits.js';

/** The `detail` of each 403 of the collector (pinned by tests). */
export const PIXEL_DETAIL = Object.freeze({
  invalidKey: 'Invalid or revoked pixel key.',
  originNotAllowed: 'Origin not allowed for this pixel key.',
  demoAccount: 'Demo accounts do not collect pixel events.',
});

function checkKey(key: PixelKeyRecord | null, origin: string | null): asserts key is PixelKeyRecord {
  if (!key || key.revoked) throw new ForbiddenError(PIXEL_DETAIL.invalidKey);
  if (origin === null || !key.origins.has(origin)) throw new ForbiddenError(PIXEL_DETAIL.originNotAllowed);
  if (key.isDemo) throw new ForbiddenError(PIXEL_DETAIL.demoAccount);
}

function toRecord(e: NormalizedPixelEvent, key: PixelKeyRecord, origin: string) {
  return {
    pixel_key_id: key.id,
    origin,
    event_id: e.event_id,
    event_type: e.event_type,
    occurred_at: e.occurred_at,
    anonymous_id: e.anonymous_id,
    session_id: e.session_id,
    url_path: e.url_path,
    page_title: e.page_title,
    referrer_host: e.referrer_host,
    product_external_id: e.product_external_id,
    collection: e.collection,
    search: e.search,
    price_cents: e.price_cents,
    dwell_ms: e.dwell_ms,
    consent_state: e.consent_state,
    raw_props_json: e.raw_props === null ? null : JSON.stringify(e.raw_props),
  } satisfies Omit<PixelEventCollected, 'metadata'>;
}

/**
 * POST /pixel/collect (spec "POST /pixel/collect"), in this order:
 * 1. 600 requests per minute per IP → 429 (before the body is read);
 * 2. body over 48 KB → plain-text 413, decided while it streams in;
 * 3. not JSON, unknown fields, 0 or more than 50 events → 422 validation body;
 * 4. unknown or revoked key, Origin not on the key's allow-list, demo account → 403 `{detail}`;
 * 5. 6,000 requests per minute per key → 429;
 * 6. events outside [now − 30 days, now + 1 hour] or without granted consent are dropped quietly;
 *    the rest are appended as PixelEventCollected in one transaction (holdfast.pixel-events).
 * 204 without body on accept and on every quiet drop. Once the key and origin pass, the answer
 * carries Access-Control-Allow-Origin for that origin.
 */
export function collectRoute(
  ctx: PixelContext,
  keys: PixelKeyDirectory,
  limiter: PixelLimiter,
): RequestHandler {
  const maxInFlight = ctx.pixelMaxInFlight ?? 64;
  let inFlight = 0;
  return async (req, res) => {
    res.vary('Origin');
    await limiter.perIp(req.ip ?? 'unknown', ctx.clock.now());
    const body = parseJsonBody(await readBody(req, PIXEL_LIMITS.bodyBytes));
    const valid = validateCollectorRequest(body);
    if (!valid.ok) throw new ValidationFailedError(valid.detail);
    const origin = normalizeRequestOrigin(req.get('origin'));
    const key = await keys.byKey(valid.request.key);
    checkKey(key, origin);
    allowOrigin(res, origin!);
    const now = ctx.clock.now();
    await limiter.perKey(key.id, now);

    const { kept } = filterPixelEvents(valid.request.events, { now });
    if (kept.length > 0 && inFlight >= maxInFlight) {
      ctx.logger.warn('pixel_load_shed', { account_id: key.accountId, events: kept.length });
    } else if (kept.length > 0) {
      const meta = {
        accountId: key.accountId,
        batchId: randomUUID(),
        requestId: req.get('x-request-id')?.trim().slice(0, 200) || null,
        keyId: key.id,
        receivedAt: now,
      };
      const records = kept.map((e) =>
        ctx.events.record('holdfast.pixel-events', 'PixelEventCollected', {
          metadata: ctx.events.metadata(meta),
          ...toRecord(e, key, origin!),
        }),
      );
      inFlight++;
      try {
        await ctx.appender.append(records);
      } finally {
        inFlight--;
      }
    }
    res.status(204).end();
  };
}
