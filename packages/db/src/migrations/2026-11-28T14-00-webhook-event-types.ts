import { sql, type Kysely } from 'kysely';

/**
 * Webhook management over HTTP (issue 24): a subscription chooses its event types (every existing
 * subscription keeps what it had, `campaign.sent`).
 */
// Frozen in time: never edit a migration that has run; add a new one.
// eslint-disable-next-line @typescript-eslint/no-explicit-any
export async function up(db: Kysely<any>): Promise<void> {
  await sql`
    alter table control.webhook_subscriptions
      add column event_types text[] not null default '{campaign.sent}';
  `.execute(db);
}
