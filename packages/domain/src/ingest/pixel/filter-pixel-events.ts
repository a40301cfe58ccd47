import type { PixelEventInput } from '@holdfast/contracts';
import { SUPPRESSED_BROWSER, type BrowserSuppressionCheck } from '../../privacy/suppression.js';
import { parseTimestamp } from '../shared/parse-timestamp.js';
import { pixelUrlPath } from './pixel-url-path.js';

/** A pixel event as appended to the log: every optional field present (null when absent), UTC occurred_at. */
export interface NormalizedPixelEvent {
  event_id: string;
  event_type: PixelEventInput['event_type'];
  occurred_at: string;
  anonymous_id: string;
  session_id: string | null;
  url_path: string | null;
  page_title: string | null;
  referrer_host: string | null;
  product_external_id: string | null;
  collection: string | null;
  search: string | null;
  price_cents: number | null;
  dwell_ms: number | null;
  consent_state: string | null;
  raw_props: Readonly<Record<string, unknown>> | null;
}

/** Events dropped quietly (the collector still answers 204), by reason. */
export interface PixelDropCounts {
  readonly too_old: number;
  readonly too_new: number;
  readonly no_consent: number;
  /** Events of a browser erased with `suppress` (code `suppressed_browser`; not a spec reason). */
  readonly suppressed: number;
}

/** The code of a dropped event, as a dry run reports it: one per reason of `PixelDropCounts`. */
export type PixelDropCode = 'too_old' | 'too_new' | 'no_consent' | typeof SUPPRESSED_BROWSER;

/** One dropped event: its position in the request, its id and why. */
export interface PixelDrop {
  readonly index: number;
  readonly event_id: string;
  readonly code: PixelDropCode;
}

/**
 * consent_state values that mean "granted" (compared trimmed, case-insensitively): 'granted' (the
 * snippet after the site's consent manager agreed), 'all' and 'analytics' (common consent-manager
 * category names), and 'not_required' (the snippet on a site without data-service-consent=required
 * and without a browser privacy signal). Anything else, including null or absent, is not consent.
 */
export const GRANTED_CONSENT_STATES: readonly string[] = ['granted', 'all', 'analytics', 'not_required'];

const GRANTED = new Set(GRANTED_CONSENT_STATES);
const MAX_AGE_MS = 30 * 86_400_000;
const MAX_AHEAD_MS = 3_600_000;

/** True when an event's consent_state grants tracking (see `GRANTED_CONSENT_STATES`). */
export function isConsentGranted(consentState: string | null | undefined): boolean {
  return consentState != null && GRANTED.has(consentState.trim().toLowerCase());
}

/**
 * Splits validated pixel events into those to store and quiet drops (spec "Pixel event"):
 * older than 30 days → `too_old`; more than 1 hour after `now` → `too_new` (exactly 30 days old or
 * exactly 1 hour ahead are kept); then, without granted consent → `no_consent`; then, of a browser
 * erased with `suppress` (`suppressed`, see `browserSuppressionCheck`) → `suppressed`. The loader
 * always sends consent_state, so a null or absent one (another client) is treated as not granted.
 * Each dropped event counts once, time window first; the suppression check runs last so only events
 * that would otherwise be stored pay its blind index. `drops` lists each dropped event with its code
 * (a dry run's `errors`).
 *
 * @example
 * filterPixelEvents(request.events, { now }).dropped; // { too_old: 0, too_new: 0, no_consent: 1, suppressed: 0 }
 */
export function filterPixelEvents(
  events: readonly PixelEventInput[],
  { now, suppressed }: { now: Date; suppressed?: BrowserSuppressionCheck },
): { kept: NormalizedPixelEvent[]; dropped: PixelDropCounts; drops: PixelDrop[] } {
  const nowMs = now.getTime();
  const kept: NormalizedPixelEvent[] = [];
  let tooOld = 0;
  let tooNew = 0;
  let noConsent = 0;
  let suppressedCount = 0;
  const drops: PixelDrop[] = [];
  const drop = (index: number, e: PixelEventInput, code: PixelDropCode) =>
    drops.push({ index, event_id: e.event_id, code });
  for (const [index, e] of events.entries()) {
    const at = parseTimestamp(e.occurred_at);
    // validateCollectorRequest guarantees a parseable occurred_at; an unchecked one is treated as too old.
    if (at === null || nowMs - at.ms > MAX_AGE_MS) {
      tooOld++;
      drop(index, e, 'too_old');
    } else if (at.ms - nowMs > MAX_AHEAD_MS) {
      tooNew++;
      drop(index, e, 'too_new');
    } else if (!isConsentGranted(e.consent_state)) {
      noConsent++;
      drop(index, e, 'no_consent');
    } else if (suppressed?.(e.anonymous_id)) {
      suppressedCount++;
      drop(index, e, SUPPRESSED_BROWSER);
    } else
      kept.push({
        event_id: e.event_id,
        event_type: e.event_type,
        occurred_at: at.iso,
        anonymous_id: e.anonymous_id,
        session_id: e.session_id ?? null,
        // Query string, fragment, emails and phones never reach the log (pixelUrlPath).
        url_path: pixelUrlPath(e.url_path),
        page_title: e.page_title ?? null,
        referrer_host: e.referrer_host ?? null,
        product_external_id: e.product_external_id ?? null,
        collection: e.collection ?? null,
        search: e.search ?? null,
        price_cents: e.price_cents ?? null,
        dwell_ms: e.dwell_ms ?? null,
        consent_state: e.consent_state ?? null,
        raw_props: e.raw_props ?? null,
      });
  }
  return {
    kept,
    dropped: { too_old: tooOld, too_new: tooNew, no_consent: noConsent, suppressed: suppressedCount },
    drops,
  };
}
