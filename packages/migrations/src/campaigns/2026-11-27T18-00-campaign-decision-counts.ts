import { sql, type Kysely } from 'kysely';

// Frozen in time: never edit a migration that has run; add a new one.
// The campaign funnel of GET /v1/reports/campaign-funnel, kept by the recompute after each campaign step
// (funnel-counts.ts): decisions counted per account, type and status, and attributed orders and net
// revenue per account and type. Counting two million decisions per page view took seconds
// (docs/performance.md, "Dashboards"). The gateway reads these and never the ledger itself (tracking
// ids, URLs, provider errors stay with the recompute).
export async function up(db: Kysely<unknown>): Promise<void> {
  await sql`
    create table analytics.campaign_decision_counts (
      account_id uuid not null,
      campaign_type text not null,
      status text not null,
      decisions integer not null check (decisions >= 0),
      counted_at timestamptz not null,
      primary key (account_id, campaign_type, status)
    );
    create table analytics.campaign_attributed_totals (
      account_id uuid not null,
      campaign_type text not null,
      orders integer not null check (orders >= 0),
      net_revenue numeric not null,
      counted_at timestamptz not null,
      primary key (account_id, campaign_type)
    );
    insert into analytics.campaign_decision_counts (account_id, campaign_type, status, decisions, counted_at)
    select account_id, campaign_type, status, count(*)::int, now()
      from analytics.campaign_assignments group by 1, 2, 3;
    insert into analytics.campaign_attributed_totals (account_id, campaign_type, orders, net_revenue, counted_at)
    select account_id, campaign_type, count(*)::int, sum(net_revenue), now()
      from analytics.attributions group by 1, 2;
  `.execute(db);
}

export async function down(db: Kysely<unknown>): Promise<void> {
  await sql`
    drop table if exists analytics.campaign_attributed_totals;
    drop table if exists analytics.campaign_decision_counts;
  `.execute(db);
}
