import { sql, type Kysely } from 'kysely';

/**
 * Quarantined subscriptions: one whose deliveries fail for a reason of its own that no retry can fix
 * (its signing secret cannot be opened: sealed under a master key this dispatcher lacks) is set aside
 * with the reason and since when, instead of failing every poll. Its pending deliveries are parked
 * (no due time, `last_error` says why) until an operator lifts the quarantine
 * (`holdfast webhooks unquarantine ID`), which makes them due again.
 */
export async function up(db: Kysely<unknown>): Promise<void> {
  await sql`
    create table dispatcher.subscription_quarantine (
      subscription_id uuid primary key,
      account_id uuid not null,
      reason text not null,
      since timestamptz not null
    );
  `.execute(db);
}

export async function down(db: Kysely<unknown>): Promise<void> {
  await sql`drop table if exists dispatcher.subscription_quarantine`.execute(db);
}
