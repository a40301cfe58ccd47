import { sql, type Kysely } from 'kysely';

/**
 * Send claim and confirm (`POST /v1/sends`, docs/read-api.md): a merchant's claim of an audience
 * page for a send from its own stack. The gateway writes these (it may not write `analytics`); the
 * recompute folds a confirmed claim into analytics.campaign_assignments (`merchant_sent` and
 * `held_out` rows) and marks it `folded_at`. No name, email or phone: customer ids and tracking ids.
 */
// Frozen in time: never edit a migration that has run; add a new one.
// eslint-disable-next-line @typescript-eslint/no-explicit-any
export async function up(db: Kysely<any>): Promise<void> {
  await sql`
    create table control.send_claims (
      send_id uuid primary key,
      account_id uuid not null,
      campaign_type text not null check (campaign_type in ('win_back', 'replenishment', 'vip')),
      channel text not null check (channel in ('email', 'sms')),
      key_id text,
      claimed_at timestamptz not null,
      expires_at timestamptz not null,
      confirmed_at timestamptz,
      sent_at timestamptz,
      folded_at timestamptz,
      check ((confirmed_at is null) = (sent_at is null)),
      check (folded_at is null or confirmed_at is not null)
    );
    -- Claims whose members still count from here (not folded yet): the cap, the cool-down, the fold.
    create index send_claims_unfolded on control.send_claims (account_id, expires_at) where folded_at is null;

    -- One row per page of a claim, keyed by the request's Idempotency-Key: a repeat answers this page.
    create table control.send_claim_pages (
      account_id uuid not null,
      idempotency_key text not null,
      send_id uuid not null references control.send_claims (send_id) on delete cascade,
      next_after uuid,
      held_out integer not null,
      left_out jsonb not null,
      created_at timestamptz not null,
      primary key (account_id, idempotency_key)
    );

    create table control.send_claim_members (
      member_id uuid primary key,
      send_id uuid not null references control.send_claims (send_id) on delete cascade,
      account_id uuid not null,
      idempotency_key text not null,
      customer_id uuid not null,
      holdout boolean not null,
      tracking_id text unique,
      cta_url text,
      unique (send_id, customer_id),
      check (holdout = (tracking_id is null)),
      check ((tracking_id is null) = (cta_url is null))
    );
    create index send_claim_members_by_customer on control.send_claim_members (account_id, customer_id);
    create index send_claim_members_by_page on control.send_claim_members (account_id, idempotency_key);
  `.execute(db);
}

// eslint-disable-next-line @typescript-eslint/no-explicit-any
export async function down(db: Kysely<any>): Promise<void> {
  await sql`
    drop table if exists control.send_claim_members;
    drop table if exists control.send_claim_pages;
    drop table if exists control.send_claims;
  `.execute(db);
}
