import { sql, type Kysely } from 'kysely';

// Frozen in time: never edit a migration that has run; add a new one.
// Column meanings and example queries: docs/analytics.md ("The recompute service").
// eslint-disable-next-line @typescript-eslint/no-explicit-any
export async function up(db: Kysely<any>): Promise<void> {
  await sql`
    create schema if not exists analytics;

    -- One row per scored customer. Partitioned by account: a recompute builds the account's new
    -- partition aside and swaps it in with one short transaction, so a reader sees either the previous
    -- recompute or the new one, never a mix (services/recompute/src/scoring/write-scores.ts).
    create table analytics.customer_scores (
      account_id uuid not null,
      customer_id uuid not null,
      external_id text,
      churn_risk double precision not null check (churn_risk between 0 and 1),
      lifecycle_state text not null check (lifecycle_state in ('Stable', 'Slowing', 'Overdue', 'Lapsed')),
      p_alive double precision not null check (p_alive between 0 and 1),
      predicted_next_purchase_at timestamptz,
      expected_purchases double precision not null,
      expected_spend numeric not null,
      realised_revenue numeric not null,
      predicted_value numeric not null,
      lifetime_value numeric not null,
      is_holdout boolean not null,
      model text not null check (model in ('bgnbd-gg', 'heuristic')),
      model_params jsonb not null,
      horizon_days integer not null check (horizon_days > 0),
      as_of timestamptz not null,
      primary key (account_id, customer_id)
    ) partition by list (account_id);
    -- No secondary index on purpose: ATTACH PARTITION would build it while holding the swap's lock.
    -- An audience query reads one account's partition, which is what a filter on account_id prunes to.
    -- Rows written straight into customer_scores (test seeds, manual fixes) land here; the account's
    -- next recompute deletes them when it swaps its own partition in. The recompute never writes here.
    create table analytics.customer_scores_default partition of analytics.customer_scores default;

    -- Every fit, kept (one row per recompute): how the model of an account moves over time.
    create table analytics.model_fits (
      account_id uuid not null,
      as_of timestamptz not null,
      model text not null check (model in ('bgnbd-gg', 'heuristic')),
      params jsonb not null,
      log_likelihood double precision,
      customers integer not null,
      repeat_customers integer not null,
      converged boolean not null,
      primary key (account_id, as_of)
    );

    -- Analysts read this schema through the same read-only role as the read models (no names,
    -- emails or phones live here).
    do $$ begin
      if not exists (select from pg_roles where rolname = 'holdfast_analyst') then
        create role holdfast_analyst nologin;
      end if;
    exception when duplicate_object or unique_violation then null;
    end $$;
    grant usage on schema analytics to holdfast_analyst;
    grant select on all tables in schema analytics to holdfast_analyst;
    alter default privileges in schema analytics grant select on tables to holdfast_analyst;
  `.execute(db);
}

// eslint-disable-next-line @typescript-eslint/no-explicit-any
export async function down(db: Kysely<any>): Promise<void> {
  await sql`drop schema if exists analytics cascade`.execute(db);
}
