/**
 * Views over the read models. Pixel sessions are stitched to customers at read time, not in the
 * pixel projection: the send that issued a utm_content lives on another topic, and cross-topic order
 * is not reproducible on replay, while a view gives the same answer whatever order the rows arrived in.
 * `security_invoker`: a reader's own grants and row-level security apply through the view (an
 * analyst sees its granted accounts), not the projector's, which owns it.
 */
export const viewsDdl = (s: string): string => `
  -- A session (session_id, else the anonymous id) belongs to the customer whose campaign link opened
  -- it: the first event of the session whose raw_props.utm_content is a tracking id we issued.
  create or replace view "${s}".pixel_session_customers with (security_invoker = true) as
  select distinct on (p.account_id, coalesce(p.session_id, p.anonymous_id))
         p.account_id,
         coalesce(p.session_id, p.anonymous_id) as session_key,
         p.anonymous_id,
         c.customer_id,
         c.tracking_id,
         c.campaign_type,
         p.occurred_at as stitched_at
    from "${s}".pixel_events p
    join "${s}".campaign_sends c
      on c.account_id = p.account_id and c.tracking_id = p.raw_props ->> 'utm_content'
   order by p.account_id, coalesce(p.session_id, p.anonymous_id), p.occurred_at, p.event_id;

  -- Every pixel event with the customer its session was stitched to (null when none).
  create or replace view "${s}".pixel_events_stitched with (security_invoker = true) as
  select p.*, s.customer_id, s.tracking_id
    from "${s}".pixel_events p
    left join "${s}".pixel_session_customers s
      on s.account_id = p.account_id and s.session_key = coalesce(p.session_id, p.anonymous_id);

  -- Orders counted at 1.0 in their account's reporting currency (an unknown code, or no rate near the
  -- order's day), and orders stored before conversion existed: what an operator should look at.
  create or replace view "${s}".orders_unconverted with (security_invoker = true) as
  select account_id, currency, reporting_currency, fx_status, count(*)::int as orders,
         min(order_date) as first_order_date, max(order_date) as last_order_date
    from "${s}".orders
   where fx_status in ('unknown_currency', 'no_rate', 'pending')
   group by account_id, currency, reporting_currency, fx_status;`;
