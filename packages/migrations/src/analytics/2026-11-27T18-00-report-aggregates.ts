import { sql, type Kysely } from 'kysely';

// Frozen in time: never edit a migration that has run; add a new one.
// What the console's dashboards read (GET /v1/reports/{name}; docs/analytics.md, "Report aggregates"),
// kept by the recompute so that a page of an account of a million customers reads a few hundred rows:
// - lifecycle_mix: customers per lifecycle state of every recompute (customer_scores keeps only the
//   latest one, so the mix over time is recorded as each is swapped in); backfilled from the scores;
// - score_bins: the latest scores' churn risk, realised revenue and lifetime value counted in the
//   dashboards' bins (written with the swap); backfilled by the first recompute of each account;
// - cohort_activity: customers of each monthly first-order cohort active in each later month (UTC),
//   from the orders, refreshed after every recompute; empty until then.
export async function up(db: Kysely<unknown>): Promise<void> {
  await sql`
    create table analytics.lifecycle_mix (
      account_id uuid not null,
      as_of timestamptz not null,
      lifecycle_state text not null check (lifecycle_state in ('Stable', 'Slowing', 'Overdue', 'Lapsed')),
      customers integer not null check (customers >= 0),
      primary key (account_id, as_of, lifecycle_state)
    );
    insert into analytics.lifecycle_mix (account_id, as_of, lifecycle_state, customers)
    select account_id, as_of, lifecycle_state, count(*)::int
      from analytics.customer_scores
     group by 1, 2, 3;

    create table analytics.score_bins (
      account_id uuid not null,
      as_of timestamptz not null,
      measure text not null check (measure in ('churn_risk', 'realised_revenue', 'lifetime_value')),
      bucket integer not null,
      customers integer not null check (customers >= 0),
      total double precision not null,
      primary key (account_id, measure, bucket)
    );

    create table analytics.cohort_activity (
      account_id uuid not null,
      cohort integer not null,
      months_since integer not null check (months_since >= 0),
      customers integer not null check (customers >= 0),
      computed_at timestamptz not null,
      primary key (account_id, cohort, months_since)
    );
  `.execute(db);
}

export async function down(db: Kysely<unknown>): Promise<void> {
  await sql`
    drop table if exists analytics.cohort_activity;
    drop table if exists analytics.score_bins;
    drop table if exists analytics.lifecycle_mix;
  `.execute(db);
}
