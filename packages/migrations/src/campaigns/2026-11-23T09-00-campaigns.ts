import { sql, type Kysely } from 'kysely';

// Frozen in time: never edit a migration that has run; add a new one.
// Column meanings and example queries: docs/analytics.md and docs/read-models.md.
export async function up(db: Kysely<unknown>): Promise<void> {
  await sql`
    create schema if not exists analytics;

    -- The experiment log and send ledger: one row per decision "customer X gets campaign T now".
    -- Treated rows carry a tracking id and move planned -> sent | failed; holdout rows (customers who
    -- would have been sent, but are in the universal holdout) are written as held_out and never sent.
    -- Cool-downs, idempotent resumption after a crash, and the lift comparison all read this table.
    -- No email, phone or name lives here: contact details are read from the read models at send time.
    create table analytics.campaign_assignments (
      assignment_id uuid primary key,
      account_id uuid not null,
      run_id uuid not null,
      task_id text,
      campaign_type text not null,
      customer_id uuid not null,
      arm text not null check (arm in ('treated', 'holdout')),
      channel text not null check (channel in ('email', 'sms')),
      provider text not null,
      status text not null check (status in ('planned', 'sent', 'failed', 'held_out')),
      tracking_id text unique,
      url text,
      assigned_at timestamptz not null,
      sent_at timestamptz,
      send_attempts integer not null default 0,
      provider_status integer,
      last_error text,
      event_appended_at timestamptz,
      check ((arm = 'treated') = (tracking_id is not null)),
      check ((status = 'held_out') = (arm = 'holdout'))
    );
    create index campaign_assignments_cooldown
      on analytics.campaign_assignments (account_id, customer_id, campaign_type, assigned_at desc);
    create index campaign_assignments_open
      on analytics.campaign_assignments (account_id, assigned_at)
      where status = 'planned' or (status = 'sent' and event_appended_at is null);
    create index campaign_assignments_by_time
      on analytics.campaign_assignments (account_id, campaign_type, assigned_at);

    -- One row per campaign step: what it did, or why it did nothing (e.g. storefront_domain_missing).
    create table analytics.campaign_runs (
      run_id uuid primary key,
      account_id uuid not null,
      task_id text,
      status text not null check (status in ('running', 'done', 'failed', 'skipped')),
      reason text,
      started_at timestamptz not null,
      finished_at timestamptz,
      planned integer not null default 0,
      held_out integer not null default 0,
      sent integer not null default 0,
      send_failed integer not null default 0,
      events_appended integer not null default 0,
      attributions integer not null default 0,
      lift_reports integer not null default 0
    );
    create index campaign_runs_by_account on analytics.campaign_runs (account_id, started_at desc);

    -- Orders attributed to a send of ours: exactly (the order's source carries our utm_content) or by
    -- 7-day last touch. Recomputed per account in one transaction.
    create table analytics.attributions (
      account_id uuid not null,
      order_id text not null,
      tracking_id text not null,
      campaign_type text not null,
      channel text not null,
      method text not null check (method in ('exact', 'last_touch')),
      order_date timestamptz not null,
      net_revenue numeric(18,4) not null,
      attributed_at timestamptz not null,
      primary key (account_id, order_id)
    );
    create index attributions_by_tracking on analytics.attributions (account_id, tracking_id);
    create index attributions_by_type on analytics.attributions (account_id, campaign_type, order_date);

    -- Lift of each campaign type against the holdout, per period (calendar month, UTC).
    create table analytics.lift_reports (
      account_id uuid not null,
      campaign_type text not null,
      period_start timestamptz not null,
      period_end timestamptz not null,
      treated_customers integer not null,
      holdout_customers integer not null,
      treated_revenue_per_customer double precision,
      holdout_revenue_per_customer double precision,
      lift double precision,
      ci_low double precision,
      ci_high double precision,
      p_value double precision,
      significant boolean not null,
      incremental_revenue double precision,
      billable_revenue numeric(18,4) not null,
      mde double precision,
      computed_at timestamptz not null,
      primary key (account_id, campaign_type, period_start, period_end)
    );

    do $$ begin
      if not exists (select from pg_roles where rolname = 'holdfast_analyst') then
        create role holdfast_analyst nologin;
      end if;
    exception when duplicate_object or unique_violation then null;
    end $$;
    grant usage on schema analytics to holdfast_analyst;
    grant select on analytics.campaign_assignments, analytics.campaign_runs, analytics.attributions,
      analytics.lift_reports to holdfast_analyst;
  `.execute(db);
}

export async function down(db: Kysely<unknown>): Promise<void> {
  await sql`
    drop table if exists analytics.lift_reports;
    drop table if exists analytics.attributions;
    drop table if exists analytics.campaign_runs;
    drop table if exists analytics.campaign_assignments;
  `.execute(db);
}
