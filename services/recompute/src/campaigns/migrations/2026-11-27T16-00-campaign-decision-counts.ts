import { sql, type Kysely } from 'kysely';

// Frozen in time: never edit a migration that has run; add a new one.
// Campaign decisions counted per account, type and status: the funnel of GET
// /v1/reports/campaign-funnel. The gateway reads this view and never the ledger itself (tracking ids,
// URLs, provider errors stay with the recompute): the view runs with its owner's rights.
export async function up(db: Kysely<unknown>): Promise<void> {
  await sql`
    create view analytics.campaign_decision_counts as
      select account_id, campaign_type, status, count(*) as decisions
        from analytics.campaign_assignments
       group by account_id, campaign_type, status;
  `.execute(db);
}

export async function down(db: Kysely<unknown>): Promise<void> {
  await sql`drop view if exists analytics.campaign_decision_counts`.execute(db);
}
