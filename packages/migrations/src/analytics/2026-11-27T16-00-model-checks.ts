import { sql, type Kysely } from 'kysely';

// Frozen in time: never edit a migration that has run; add a new one.
// Column meanings: docs/analytics.md ("Model choice on a holdout", "analytics.model_fits").
// eslint-disable-next-line @typescript-eslint/no-explicit-any
export async function up(db: Kysely<any>): Promise<void> {
  await sql`
    -- Pareto/NBD joins the models a recompute can score with. On the partitioned customer_scores the
    -- constraint is replaced on every partition too, and new partitions (created LIKE the parent,
    -- including constraints) copy it.
    alter table analytics.customer_scores drop constraint if exists customer_scores_model_check;
    alter table analytics.customer_scores add constraint customer_scores_model_check
      check (model in ('bgnbd-gg', 'pareto-nbd-gg', 'heuristic'));
    alter table analytics.model_fits drop constraint if exists model_fits_model_check;
    alter table analytics.model_fits add constraint model_fits_model_check
      check (model in ('bgnbd-gg', 'pareto-nbd-gg', 'heuristic'));

    -- 90% intervals of each customer's expected purchases and lifetime value (null for the heuristic,
    -- which has no fitted parameters to be uncertain about). New partitions are created LIKE the
    -- parent, so they have the columns; the COPY of a recompute that does not list them leaves null.
    alter table analytics.customer_scores
      add column expected_purchases_low double precision,
      add column expected_purchases_high double precision,
      add column lifetime_value_low numeric,
      add column lifetime_value_high numeric;

    -- The holdout check behind the model (null when the account's history was too short for one).
    alter table analytics.model_fits
      add column holdout_weeks double precision,
      add column holdout_customers integer,
      -- bgnbd / pareto-nbd, or null when neither calibration fit was usable.
      add column holdout_choice text,
      add column holdout_reason text,
      -- The chosen model's showing on the holdout.
      add column holdout_aggregate_error double precision,
      add column holdout_correlation double precision,
      add column holdout_mae double precision,
      -- Expected calibration error of P(no purchase in the holdout), and its reliability table
      -- [{predicted, observed, customers}] by decile.
      add column calibration_error double precision,
      add column reliability jsonb,
      -- Every candidate: its calibration fit, failure and diagnostics.
      add column holdout_candidates jsonb;
  `.execute(db);
}

// eslint-disable-next-line @typescript-eslint/no-explicit-any
export async function down(db: Kysely<any>): Promise<void> {
  await sql`
    alter table analytics.customer_scores
      drop column expected_purchases_low, drop column expected_purchases_high,
      drop column lifetime_value_low, drop column lifetime_value_high;
    alter table analytics.model_fits
      drop column holdout_weeks, drop column holdout_customers, drop column holdout_choice,
      drop column holdout_reason, drop column holdout_aggregate_error, drop column holdout_correlation,
      drop column holdout_mae, drop column calibration_error, drop column reliability,
      drop column holdout_candidates;
  `.execute(db);
}
