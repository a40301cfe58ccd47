import { sql, type Kysely } from 'kysely';

// Frozen in time: never edit a migration that has run; add a new one.
// The lifecycle mix of every recompute (docs/analytics.md, "analytics.lifecycle_mix"): customer_scores
// keeps the latest recompute only, so the mix over time (a console dashboard, GET
// /v1/reports/lifecycle-mix) is recorded as it is swapped in. Backfilled with the current scores.
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
  `.execute(db);
}

export async function down(db: Kysely<unknown>): Promise<void> {
  await sql`drop table if exists analytics.lifecycle_mix`.execute(db);
}
