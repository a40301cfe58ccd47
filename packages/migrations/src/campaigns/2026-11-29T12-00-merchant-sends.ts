import { sql, type Kysely } from 'kysely';

// Frozen in time: never edit a migration that has run; add a new one.
// A merchant's confirmed send claim (POST /v1/sends, docs/read-api.md) enters the ledger: its members
// as `merchant_sent` (treated, attributable, counted for the cap), its holdout members as `held_out`,
// each with the claim's `send_id`; `assignment_id` is the claim member's id, so a fold run twice
// writes once.
export async function up(db: Kysely<unknown>): Promise<void> {
  await sql`
    alter table analytics.campaign_assignments
      drop constraint campaign_assignments_status,
      drop constraint campaign_assignments_tracking,
      drop constraint campaign_assignments_treated,
      add column send_id uuid;
    alter table analytics.campaign_assignments
      add constraint campaign_assignments_status check (status in
        ('planned', 'sending', 'sent', 'possibly_sent', 'failed', 'held_out', 'sandbox_simulated', 'capped',
         'no_consent', 'suppressed', 'disabled', 'merchant_sent')),
      add constraint campaign_assignments_tracking check ((tracking_id is not null) = (status in
        ('planned', 'sending', 'sent', 'possibly_sent', 'failed', 'sandbox_simulated', 'merchant_sent'))),
      add constraint campaign_assignments_treated check (status not in
        ('planned', 'sending', 'sent', 'possibly_sent', 'failed', 'sandbox_simulated', 'merchant_sent')
        or arm = 'treated'),
      add constraint campaign_assignments_merchant check (status <> 'merchant_sent'
        or (send_id is not null and sent_at is not null));
  `.execute(db);
}

export async function down(db: Kysely<unknown>): Promise<void> {
  await sql`
    alter table analytics.campaign_assignments drop constraint if exists campaign_assignments_merchant;
    alter table analytics.campaign_assignments drop column if exists send_id;
  `.execute(db);
}
