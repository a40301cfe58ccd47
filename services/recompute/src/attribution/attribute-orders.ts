import type { Kysely } from 'kysely';
import { rawQuery, withTransaction, type Database, type Pool } from '@holdfast/postgres';
import { recordOutboundEvents } from '@holdfast/webhook-deliveries';
import {
  ATTRIBUTABLE_STATUSES,
  ATTRIBUTION_PATTERNS,
  DEFAULT_LAST_TOUCH_DAYS,
  recoveryAttributed,
  UTM_SOURCE,
} from '@holdfast/domain';
import { recomputeDbOn } from '../recompute-database.js';

/** How orders are attributed (docs/analytics.md, "Attribution"). */
export interface AttributionInput {
  readonly accountId: string;
  readonly readModelSchema: string;
  /** Stamped on every row as attributed_at. */
  readonly now: Date;
  /** Last-touch window in days (default `DEFAULT_LAST_TOUCH_DAYS`, 7). */
  readonly lastTouchDays?: number;
}

/**
 * Recomputes analytics.attributions of one account, set-based, in one transaction (readers see the old
 * or the new set, never a mix). Deterministic: the same orders and sends give the same rows.
 *
 * The rule is the domain's `attributeOrders` (packages/domain/src/campaigns/attribution.ts: sends of
 * ours, exact by utm_content, else last touch, cancelled and foreign-campaign orders, net revenue in the
 * reporting currency). This is its set-based form for speed, built from the same patterns and
 * constants; `services/recompute/test/attribution/attribute-orders.property.int.test.ts` holds the two
 * to the same rows on generated ledgers and orders.
 */
export async function recomputeAttributions(pool: Pool, a: AttributionInput): Promise<number> {
  const rm = `"${a.readModelSchema}"`;
  return withTransaction(pool, async (client) => {
    await recomputeDbOn(client)
      .deleteFrom('analytics.attributions')
      .where('account_id', '=', a.accountId)
      .execute();
    // Set-based, one statement (CTEs, lateral, regexp over every order): raw, named.
    const res = await rawQuery(
      client,
      'attribute-orders.insert-attributions',
      `with sends as (
       select tracking_id, customer_id, campaign_type, channel, sent_at
         from analytics.campaign_assignments
        where account_id = $1 and status = any($4::text[])
       union all
       select cs.tracking_id, cs.customer_id, cs.campaign_type, cs.channel, cs.sent_at
         from ${rm}.campaign_sends cs
        where cs.account_id = $1
          and not exists (select 1 from analytics.campaign_assignments x
                           where x.account_id = $1 and x.tracking_id = cs.tracking_id)),
     orders as (
       -- In the account's reporting currency (docs/campaigns.md "Currency").
       select o.order_id, o.customer_id, o.order_date, o.net_amount_reporting as net_amount,
              lower((regexp_match(o.source, $5, 'i'))[1]) as utm_content,
              coalesce(o.source ~* $6, false)
                and coalesce(lower((regexp_match(o.source, $7, 'i'))[1]), '') <> $8
                as foreign_campaign
         from ${rm}.orders o
        where o.account_id = $1 and o.cancelled_at is null),
     exact as (
       select o.order_id, s.tracking_id, s.campaign_type, s.channel, 'exact' as method, o.order_date, o.net_amount
         from orders o join sends s on s.tracking_id = o.utm_content),
     last_touch as (
       select o.order_id, s.tracking_id, s.campaign_type, s.channel, 'last_touch' as method, o.order_date,
              o.net_amount
         from orders o
         cross join lateral (
           select s.* from sends s
            where s.customer_id = o.customer_id
              and s.sent_at <= o.order_date
              -- 24-hour days whatever the session's time zone; ties by code point (the pure rule's order).
              and s.sent_at >= o.order_date - make_interval(secs => $3::float8 * 86400)
            order by s.sent_at desc, s.tracking_id collate "C" desc
            limit 1) s
        where not o.foreign_campaign
          and o.customer_id is not null
          and not exists (select 1 from exact e where e.order_id = o.order_id))
     insert into analytics.attributions
       (account_id, order_id, tracking_id, campaign_type, channel, method, order_date, net_revenue, attributed_at)
     select $1, order_id, tracking_id, campaign_type, channel, method, order_date, net_amount, $2
       from (select * from exact union all select * from last_touch) x`,
      [
        a.accountId,
        a.now,
        a.lastTouchDays ?? DEFAULT_LAST_TOUCH_DAYS,
        ATTRIBUTABLE_STATUSES,
        ATTRIBUTION_PATTERNS.utmContent,
        ATTRIBUTION_PATTERNS.anyUtm,
        ATTRIBUTION_PATTERNS.utmSource,
        UTM_SOURCE,
      ],
    );
    // recovery.attributed, once per order: only orders not announced before come back (the natural
    // key is the order; the id rule is recoveryAttributed's, the filter only spares the conflicts).
    const { rows } = await rawQuery<{
      order_id: string;
      tracking_id: string;
      campaign_type: string;
      channel: string;
      method: string;
      order_date: Date;
      net_revenue: string;
      external_id: string | null;
    }>(
      client,
      'attribute-orders.new-recoveries',
      `select a.order_id, a.tracking_id, a.campaign_type, a.channel, a.method, a.order_date, a.net_revenue,
              c.external_id
         from analytics.attributions a
         join ${rm}.orders o on o.account_id = a.account_id and o.order_id = a.order_id
         left join ${rm}.customers c on c.account_id = o.account_id and c.customer_id = o.customer_id
        where a.account_id = $1
          and not exists (select 1 from control.outbound_events e
                           where e.account_id = $1 and e.event_type = 'recovery.attributed'
                             and e.subject = 'order:' || a.order_id)`,
      [a.accountId],
    );
    await recordOutboundEvents(
      recomputeDbOn(client) as unknown as Kysely<Database>,
      rows.map((r) => ({
        accountId: a.accountId,
        occurredAt: a.now,
        ...recoveryAttributed({
          orderId: r.order_id,
          customerExternalId: r.external_id,
          trackingId: r.tracking_id,
          campaignType: r.campaign_type,
          channel: r.channel,
          method: r.method,
          orderDate: r.order_date,
          netRevenue: Number(r.net_revenue),
        }),
      })),
    );
    return res.rowCount ?? 0;
  });
}
