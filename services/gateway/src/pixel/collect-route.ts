import { randomUUID } from 'node:crypto';
import type { Request, RequestHandler } from 'express';
import type { CollectorRequestInput, PixelEventCollected } from '@holdfast/contracts';
import { filterPixelEvents, validateCollectorRequest, type NormalizedPixelEvent } from '@holdfast/domain';
import { ForbiddenError, HttpError } from '@holdfast/platform';
import { parseJsonBody, readBody } from '../http/body-reader.js';
import { rateLimitAddress } from '../limits/client-ip.js';
import { AppendsInFlight, pixelAppendDecision } from './append-stall.js';
import { allowOrigin } from './cors.js';
import type { PixelContext } from './pixel-context.js';
import { normalizeRequestOrigin, type PixelKeyDirectory, type PixelKeyRecord } from './pixel-keys.js';
import { PIXEL_LIMITS, type PixelLimiter } from './pixel-limits.js';
import { ValidationFailedError } from '../http/validation-failed.js';
import { pixelDryRunResponse } from './pixel-dry-run.js';

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
    // Set by EventFactory.pixelRecords, which seals raw_props, search and page_title into it.
    personal: null,
  } satisfies Omit<PixelEventCollected, 'metadata'>;
}

/** The `detail` of the collector's 503: the event log is not answering, nothing was stored. */
export const PIXEL_UNAVAILABLE_DETAIL = 'Events could not be stored right now. Retry shortly.';
/** Seconds in the Retry-After of that 503. */
export const PIXEL_UNAVAILABLE_RETRY_AFTER_S = 5;

function unavailable(): HttpError {
  return new HttpError(503, PIXEL_UNAVAILABLE_DETAIL, {
    'Retry-After': String(PIXEL_UNAVAILABLE_RETRY_AFTER_S),
  });
}

/** What the checks before the rate limits establish: a valid request of a live key from an allowed origin. */
interface Checked {
  readonly request: CollectorRequestInput;
  readonly dryRun: boolean;
  readonly key: PixelKeyRecord;
  readonly origin: string;
}

/**
 * POST /pixel/collect (spec "POST /pixel/collect"), in this order:
 * 1. body over 48 KB → plain-text 413, decided while it streams in;
 * 2. not JSON, unknown fields, 0 or more than 50 events → 422 validation body;
 * 3. unknown or revoked key, Origin not on the key's allow-list, demo account → 403 `{detail}`;
 * 4. 600 requests per minute per IP → 429 (every request counts, refused ones too: a request refused
 *    by 1–3 is counted alone and answered 429 instead once its IP is over the limit, so an IP over
 *    its limit gets 429 whatever it sends, as when the IP was checked first);
 * 5. 6,000 requests per minute per key → 429. 4 and 5 are ONE statement (one round trip,
 *    `PixelLimiter.perIpAndKey`) for a request that passed 1–3; the key is not counted when the IP is
 *    refused;
 * 6. events outside [now − 30 days, now + 1 hour] or without granted consent are dropped quietly, and
 *    so are events of a browser erased with `suppress` (counted: metric
 *    `holdfast_ingest_rows_total{outcome="suppressed"}`, log line `pixel_suppressed`);
 *    the rest are appended as PixelEventCollected in ONE produce request (holdfast.pixel-events),
 *    their raw_props, search and page title sealed under their browser's key (docs/privacy.md):
 *    all of a request's events share the account id as key, so they form one record batch on one
 *    partition, stored all or none (`IdempotentBatchAppender`).
 *    When the log does not answer (an append failed, or sealing could not read or create a key, or
 *    the account's suppressions could not be read, or the oldest append in flight has waited more
 *    than `pixelAppendStallMs`: `pixelAppendDecision`) → 503 `{detail}` + Retry-After, never a 204:
 *    the spec's quiet drop covers load shedding (the in-flight cap reached while Kafka answers), not
 *    an outage, which must be visible to the caller and to the access log.
 * 204 without body on accept and on every quiet drop. With `?dry_run=true` exactly (not a spec mode;
 * any other query is ignored, as the spec's collector ignores its query string) steps 1–5 are the same, nothing is
 * appended or counted, and the answer is 200 `pixelDryRunResponse`: each dropped event with its code.
 * Once the key and origin pass, the answer carries Access-Control-Allow-Origin for that origin
 * (except for the IP's 429, as before the key check).
 */
export function collectRoute(
  ctx: PixelContext,
  keys: PixelKeyDirectory,
  limiter: PixelLimiter,
): RequestHandler {
  const maxInFlight = ctx.pixelMaxInFlight ?? 64;
  const stallMs = ctx.pixelAppendStallMs ?? 2_000;
  const inFlight = new AppendsInFlight();
  const check = async (req: Request): Promise<Checked> => {
    const body = parseJsonBody(await readBody(req, PIXEL_LIMITS.bodyBytes));
    const valid = validateCollectorRequest(body);
    if (!valid.ok) throw new ValidationFailedError(valid.detail);
    // Exactly `true`: the spec defines no query for the collector, so anything else keeps its 204.
    const dryRun = req.query.dry_run === 'true';
    const origin = normalizeRequestOrigin(req.get('origin'));
    const key = await keys.byKey(valid.request.key);
    checkKey(key, origin);
    return { request: valid.request, dryRun, key, origin: origin! };
  };
  return async (req, res) => {
    res.vary('Origin');
    const ip = rateLimitAddress(req.ip);
    let checked: Checked;
    try {
      checked = await check(req);
    } catch (err) {
      // Refused before the key passed: the request still counts against its IP (429 once over).
      await limiter.perIp(ip, ctx.clock.now());
      throw err;
    }
    const { request, dryRun, key, origin } = checked;
    const now = ctx.clock.now();
    const refused = await limiter.perIpAndKey(ip, key.id, now);
    if (refused?.beforeOrigin) throw refused.error;
    allowOrigin(res, origin);
    if (refused) throw refused.error;

    let suppressed;
    try {
      suppressed = await ctx.suppressions.browserCheck(key.accountId);
    } catch (err) {
      // Storing a suppressed browser's events because the list could not be read would break the
      // erasure's promise; dropping every event behind a 204 would hide an outage: 503, as for the log.
      ctx.logger.error('pixel_suppressions_unavailable', {
        account_id: key.accountId,
        error: (err as Error).message,
      });
      throw unavailable();
    }
    const { kept, dropped, drops } = filterPixelEvents(request.events, { now, suppressed });
    if (dryRun) {
      res.status(200).json(pixelDryRunResponse(request.events.length, kept.length, drops));
      return;
    }
    if (dropped.suppressed > 0) {
      // Not in the answer (the spec's 204 has no body): the metric and the log line count them.
      ctx.metrics.rows.inc({ endpoint: 'POST /pixel/collect', outcome: 'suppressed' }, dropped.suppressed);
      ctx.logger.info('pixel_suppressed', { account_id: key.accountId, events: dropped.suppressed });
    }
    const decision =
      kept.length === 0
        ? null
        : pixelAppendDecision({
            inFlight: inFlight.count,
            oldestStartedAt: inFlight.oldestStartedAt(),
            now: performance.now(),
            maxInFlight,
            stallMs,
          });
    if (decision === 'unavailable') {
      ctx.logger.warn('pixel_log_unavailable', { account_id: key.accountId, events: kept.length });
      throw unavailable();
    } else if (decision === 'shed') {
      ctx.logger.warn('pixel_load_shed', { account_id: key.accountId, events: kept.length });
    } else if (decision === 'append') {
      const meta = {
        accountId: key.accountId,
        batchId: randomUUID(),
        requestId: req.get('x-request-id')?.trim().slice(0, 200) || null,
        keyId: key.id,
        receivedAt: now,
      };
      const settled = inFlight.begin(performance.now());
      try {
        // Sealing reads (and on a browser's first event creates) its key: a database failure here is
        // the same outage for the caller as a log that does not answer (503, nothing stored).
        const records = await ctx.events.pixelRecords(
          key.accountId,
          kept.map((e) => ({ metadata: ctx.events.metadata(meta), ...toRecord(e, key, origin) })),
        );
        await ctx.pixelAppender.append(records);
      } catch (err) {
        ctx.logger.error('pixel_append_failed', {
          account_id: key.accountId,
          events: kept.length,
          error: (err as Error).message,
        });
        throw unavailable();
      } finally {
        settled();
      }
    }
    res.status(204).end();
  };
}
