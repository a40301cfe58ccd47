import { instantKey } from '../commerce/instant.js';
import { ATTRIBUTABLE_STATUSES } from './send-status.js';
import { UTM_SOURCE } from './utm-link.js';

/**
 * Attribution (spec, general rule 8): which send of ours an order is credited to. The definition;
 * the recompute applies it set-based in SQL (`attribute-orders.ts`, built from the patterns below)
 * and `attribute-orders.property.int.test.ts` holds that SQL to {@link attributeOrders}.
 */

/** Last-touch window in days before the order (spec: "7-day last-touch"); 24-hour days, no calendar. */
export const DEFAULT_LAST_TOUCH_DAYS = 7;

/**
 * Regular expressions shared verbatim by the pure rule and the SQL (POSIX ARE and JavaScript read these
 * three the same way; the whitespace class is spelled out because `\s` differs between the two).
 * Matched case-insensitively; the first match counts.
 */
export const ATTRIBUTION_PATTERNS = Object.freeze({
  /** The tracking id an order's source carries (any text containing the parameter). */
  utmContent: 'utm_content=([A-Za-z0-9_-]+)',
  /** Any utm parameter at all. */
  anyUtm: 'utm_[a-z]+=',
  /** The utm_source value. */
  utmSource: 'utm_source=([^&#\t\n\v\f\r ]+)',
});

const UTM_CONTENT = new RegExp(ATTRIBUTION_PATTERNS.utmContent, 'i');
const ANY_UTM = new RegExp(ATTRIBUTION_PATTERNS.anyUtm, 'i');
const UTM_SOURCE_RE = new RegExp(ATTRIBUTION_PATTERNS.utmSource, 'i');

/** A send as the attribution sees it (ledger row or projected campaign send). */
export interface AttributionSend {
  readonly trackingId: string;
  readonly customerId: string;
  readonly campaignType: string;
  readonly channel: string;
  /** ISO 8601; null for a ledger row never sent (it can still match exactly by tracking id). */
  readonly sentAt: string | null;
}

/** A row of the send ledger (`analytics.campaign_assignments`) with its status. */
export interface LedgerSend extends AttributionSend {
  readonly status: string;
}

export interface AttributionOrder {
  readonly orderId: string;
  readonly customerId: string | null;
  /** ISO 8601. */
  readonly orderDate: string;
  readonly source: string | null;
  readonly cancelled: boolean;
  /** Net of refunds, in the account's reporting currency; carried through unchanged. */
  readonly netAmount: number;
}

export type AttributionMethod = 'exact' | 'last_touch';

export interface Attribution {
  readonly orderId: string;
  readonly trackingId: string;
  readonly campaignType: string;
  readonly channel: string;
  readonly method: AttributionMethod;
  readonly orderDate: string;
  readonly netRevenue: number;
}

/**
 * The sends that are ours: ledger rows in an attributable status (sent, possibly sent, merchant sent), plus projected
 * sends the ledger does not know at all (a ledger row in another status hides its projection: the
 * ledger is the authority on its own tracking ids). Sends from the merchant's own stack carry no
 * tracking id of ours, so they never appear here and are never attributed.
 *
 * @example
 * sendsOfOurs([{ ...s1, status: 'failed' }], [s1, s2]); // [s2]
 */
export function sendsOfOurs(
  ledger: readonly LedgerSend[],
  projected: readonly AttributionSend[],
): AttributionSend[] {
  const attributable: readonly string[] = ATTRIBUTABLE_STATUSES;
  const inLedger = new Set(ledger.map((s) => s.trackingId));
  return [
    ...ledger.filter((s) => attributable.includes(s.status)),
    ...projected.filter((s) => !inLedger.has(s.trackingId)),
  ];
}

/**
 * The tracking id in an order's source, lower-cased (case-insensitive match), or null.
 *
 * @example
 * trackingIdInSource('email utm_content=HFT_01'); // 'hft_01'
 */
export function trackingIdInSource(source: string | null): string | null {
  if (source === null) return null;
  return UTM_CONTENT.exec(source)?.[1]?.toLowerCase() ?? null;
}

/**
 * The order came through someone else's campaign: its source carries utm parameters whose utm_source
 * is not ours (missing counts as not ours). Last touch does not claim such an order.
 *
 * @example
 * isForeignCampaign('https://shop.example/?utm_source=klaviyo&utm_content=x'); // true
 * isForeignCampaign('https://shop.example/?utm_source=HoldFast&utm_content=x'); // false
 */
export function isForeignCampaign(source: string | null): boolean {
  if (source === null || !ANY_UTM.test(source)) return false;
  return (UTM_SOURCE_RE.exec(source)?.[1]?.toLowerCase() ?? '') !== UTM_SOURCE;
}

/**
 * One order's attribution, or null:
 * - cancelled orders are never attributed;
 * - exact: the source carries the tracking id of one of our sends (whoever the customer is: a
 *   forwarded link still converted);
 * - last_touch: else, unless the order came through someone else's campaign, the latest send to the
 *   order's customer in the `lastTouchDays` × 24 h up to the order date, both ends included (ties:
 *   the greatest tracking id, by code unit).
 *
 * @example
 * attributeOrder(order, sends); // { method: 'last_touch', trackingId: 'hft_02', … } or null
 */
export function attributeOrder(
  order: AttributionOrder,
  sends: readonly AttributionSend[],
  lastTouchDays: number = DEFAULT_LAST_TOUCH_DAYS,
): Attribution | null {
  if (order.cancelled) return null;
  const credit = (s: AttributionSend, method: AttributionMethod): Attribution => ({
    orderId: order.orderId,
    trackingId: s.trackingId,
    campaignType: s.campaignType,
    channel: s.channel,
    method,
    orderDate: order.orderDate,
    netRevenue: order.netAmount,
  });
  const tracking = trackingIdInSource(order.source);
  const exact = tracking === null ? undefined : sends.find((s) => s.trackingId === tracking);
  if (exact) return credit(exact, 'exact');
  if (order.customerId === null || isForeignCampaign(order.source)) return null;
  // Microseconds, as PostgreSQL keeps them.
  const until = instantKey(order.orderDate);
  const since = until - lastTouchDays * 86_400_000_000;
  let best: { send: AttributionSend; at: number } | null = null;
  for (const s of sends) {
    if (s.customerId !== order.customerId || s.sentAt === null) continue;
    const at = instantKey(s.sentAt);
    if (at < since || at > until) continue;
    if (best === null || at > best.at || (at === best.at && s.trackingId > best.send.trackingId))
      best = { send: s, at };
  }
  return best === null ? null : credit(best.send, 'last_touch');
}

/**
 * Every order's attribution (orders without one are left out), in the order given.
 *
 * @example
 * attributeOrders(orders, sendsOfOurs(ledger, projected)); // Attribution[]
 */
export function attributeOrders(
  orders: readonly AttributionOrder[],
  sends: readonly AttributionSend[],
  lastTouchDays: number = DEFAULT_LAST_TOUCH_DAYS,
): Attribution[] {
  return orders.flatMap((o) => attributeOrder(o, sends, lastTouchDays) ?? []);
}
