import { sql, type Kysely } from 'kysely';

// Frozen in time: never edit a migration that has run; add a new one.
// At most one message per planned send (docs/campaigns.md, "At most once"): a send is claimed
// (planned -> sending, claimed_at) in a committed write before its provider is called, and recorded
// after (sent | failed). A claim found unconfirmed by a later step is re-sent with the same idempotency
// key (providers that honour one) or becomes possibly_sent (SMTP, Twilio-shaped SMS): counted as sent
// for the cap, attribution and lift, never sent again.
export async function up(db: Kysely<unknown>): Promise<void> {
  await sql`
    alter table analytics.campaign_assignments
      drop constraint campaign_assignments_status,
      drop constraint campaign_assignments_tracking,
      drop constraint campaign_assignments_treated,
      add column claimed_at timestamptz;
    alter table analytics.campaign_assignments
      add constraint campaign_assignments_status check (status in
        ('planned', 'sending', 'sent', 'possibly_sent', 'failed', 'held_out', 'sandbox_simulated', 'capped',
         'no_consent', 'suppressed', 'disabled')),
      add constraint campaign_assignments_tracking check ((tracking_id is not null) = (status in
        ('planned', 'sending', 'sent', 'possibly_sent', 'failed', 'sandbox_simulated'))),
      add constraint campaign_assignments_treated check (status not in
        ('planned', 'sending', 'sent', 'possibly_sent', 'failed', 'sandbox_simulated') or arm = 'treated'),
      add constraint campaign_assignments_claimed check (status not in ('sending', 'possibly_sent')
        or claimed_at is not null);
    drop index analytics.campaign_assignments_open;
    create index campaign_assignments_open
      on analytics.campaign_assignments (account_id, assigned_at)
      where status in ('planned', 'sending') or (status = 'sent' and event_appended_at is null);

    alter table analytics.campaign_runs add column possibly_sent integer not null default 0;
  `.execute(db);
}

export async function down(db: Kysely<unknown>): Promise<void> {
  await sql`
    alter table analytics.campaign_runs drop column if exists possibly_sent;
    alter table analytics.campaign_assignments drop column if exists claimed_at;
  `.execute(db);
}
