import { sql, type Kysely } from 'kysely';

// Frozen in time: never edit a migration that has run; add a new one.
// Sends a merchant controls (docs/campaigns.md) and lift settlement (docs/analytics.md, "Lift reports").
export async function up(db: Kysely<unknown>): Promise<void> {
  await sql`
    -- Campaign types an operator enabled per account (holdfast campaigns enable/disable). No row: off.
    create table analytics.campaign_type_settings (
      account_id uuid not null,
      campaign_type text not null,
      enabled boolean not null,
      changed_at timestamptz not null,
      primary key (account_id, campaign_type)
    );
    -- The frequency cap across all types (holdfast campaigns cap). No row: 1 message per 7 days.
    create table analytics.campaign_account_settings (
      account_id uuid primary key,
      frequency_cap_messages integer not null check (frequency_cap_messages >= 1),
      frequency_cap_days integer not null check (frequency_cap_days >= 1),
      changed_at timestamptz not null
    );

    -- Every decision is a ledger row now, not only planned/sent/held_out: customers of a disabled type,
    -- without consent, suppressed, capped, and the simulated sends of sandbox accounts. Those have no
    -- channel (nobody reachable) or no provider (sandbox, unreachable), so both become nullable.
    do $$
    declare c record;
    begin
      for c in select conname from pg_constraint
                where conrelid = 'analytics.campaign_assignments'::regclass and contype = 'c' loop
        execute format('alter table analytics.campaign_assignments drop constraint %I', c.conname);
      end loop;
    end $$;
    alter table analytics.campaign_assignments alter column channel drop not null;
    alter table analytics.campaign_assignments alter column provider drop not null;
    alter table analytics.campaign_assignments
      add constraint campaign_assignments_arm check (arm in ('treated', 'holdout')),
      add constraint campaign_assignments_channel check (channel in ('email', 'sms')),
      add constraint campaign_assignments_status check (status in
        ('planned', 'sent', 'failed', 'held_out', 'sandbox_simulated', 'capped', 'no_consent', 'suppressed', 'disabled')),
      add constraint campaign_assignments_tracking check (
        (tracking_id is not null) = (status in ('planned', 'sent', 'failed', 'sandbox_simulated'))),
      add constraint campaign_assignments_held_out check (status <> 'held_out' or arm = 'holdout'),
      add constraint campaign_assignments_treated check (
        status not in ('planned', 'sent', 'failed', 'sandbox_simulated') or arm = 'treated');
    -- The frequency cap reads a customer's recent decisions of every type through the existing
    -- campaign_assignments_cooldown index (account_id, customer_id, ...).

    alter table analytics.campaign_runs
      add column sends_enabled boolean,
      add column trigger text,
      add column sandbox_simulated integer not null default 0,
      add column capped integer not null default 0,
      add column no_consent integer not null default 0,
      add column suppressed integer not null default 0,
      add column disabled integer not null default 0;

    -- Settlement: a period's billable figure is provisional until settles_at (period end + the settlement
    -- days), then computed once more, marked final and never changed again.
    alter table analytics.lift_reports
      add column test text,
      add column p_value_greater double precision,
      add column settlement_status text not null default 'provisional'
        check (settlement_status in ('provisional', 'final')),
      add column settles_at timestamptz,
      add column settled_at timestamptz,
      add column final_billable_revenue numeric(18,4);

    grant select on analytics.campaign_type_settings, analytics.campaign_account_settings to holdfast_analyst;
  `.execute(db);
}

export async function down(db: Kysely<unknown>): Promise<void> {
  await sql`
    drop table if exists analytics.campaign_type_settings;
    drop table if exists analytics.campaign_account_settings;
  `.execute(db);
}
