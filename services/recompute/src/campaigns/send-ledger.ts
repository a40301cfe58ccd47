import { rawQuery, sql, type Pool } from '@holdfast/postgres';
import { recomputeDb } from '../recompute-database.js';
import { scrubPersonalText, type CampaignType } from '@holdfast/domain';
import type { Channel } from './campaign-types.js';

/** A send to work on: `planned`, or `sending` (claimed by an earlier step that never recorded it). */
export interface OpenSend {
  readonly assignmentId: string;
  readonly customerId: string;
  readonly campaignType: CampaignType;
  readonly channel: Channel;
  readonly provider: string;
  readonly trackingId: string;
  readonly status: 'planned' | 'sending';
}

/**
 * The result of a claim: the send is now `sending` (committed) with the contact read at that moment,
 * or it was not claimed because the customer has no contact any more or no longer consents (read in
 * the same statement, right before the hand-over), or because its row is no longer in the expected
 * state (`gone`: another step recorded it).
 */
export type Claim =
  | { readonly claimed: true; readonly to: string }
  | { readonly claimed: false; readonly reason: 'no_contact' | 'consent_withdrawn' | 'gone' };

/** What a send's record says after a success. */
export interface SentRecord {
  readonly url: string;
  readonly statusCode: number | null;
  readonly sentAt: Date;
  readonly attempts: number;
  readonly lastFailure: { errorClass: string; kind: 'retriable' | 'permanent' } | null;
}

/** What a send's record says after a failure or a refusal (attempts 0: never handed over). */
export interface FailedRecord {
  readonly error: string;
  readonly failureKind: 'retriable' | 'permanent';
  readonly statusCode?: number | null;
  readonly attempts: number;
}

/**
 * The writes of the send path, one object so a test can wrap one of them (e.g. a `markSent` that
 * throws once) and run the production path otherwise. `createSendLedger` is the only implementation.
 */
export interface SendLedger {
  /** The account's planned sends and unconfirmed claims (`sending`), oldest first. */
  openSends(accountId: string): Promise<OpenSend[]>;
  /**
   * Reads the customer's contact and consent now and, when both are there, moves the send from
   * `from` to `sending` with `claimed_at` in one committed statement, before the provider is called.
   */
  claim(send: OpenSend, from: 'planned' | 'sending', at: Date): Promise<Claim>;
  /** sending → sent. */
  markSent(assignmentId: string, s: SentRecord): Promise<void>;
  /** planned | sending → failed (a refusal before any attempt, or the provider's last failure). */
  markFailed(assignmentId: string, f: FailedRecord): Promise<void>;
  /** sending → possibly_sent: maybe handed over, never confirmed; `sent_at` is the claim's time. */
  markPossiblySent(assignmentId: string, p: { error: string; attempts: number }): Promise<void>;
  /** sending → planned: claimed but never handed to the provider (the step stopped first). */
  release(assignmentId: string, attempts: number): Promise<void>;
}

/** The ledger over `analytics.campaign_assignments`, reading contact and consent from the read models. */
export function createSendLedger(pool: Pool, readModelSchema: string): SendLedger {
  const db = recomputeDb(pool);
  const rm = `"${readModelSchema.replace(/"/g, '""')}"`;
  return {
    async openSends(accountId) {
      return (
        db
          .selectFrom('analytics.campaign_assignments as a')
          .select([...SEND_COLUMNS, 'a.status'])
          .where('a.account_id', '=', accountId)
          .where('a.status', 'in', ['planned', 'sending'])
          .orderBy('a.assigned_at')
          .orderBy('a.assignment_id')
          // An open row has its channel, provider and tracking id (the ledger's checks).
          .$narrowType<{
            campaignType: CampaignType;
            channel: Channel;
            provider: string;
            trackingId: string;
            status: 'planned' | 'sending';
          }>()
          .execute()
      );
    },

    async claim(send, from, at) {
      // One statement: the contact and consent as they are now, and the claim only if both are there.
      const res = await rawQuery<{ to: string | null; consent_ok: boolean; claimed: boolean }>(
        pool,
        'send-ledger.claim',
        `with now_state as (
           select a.assignment_id,
                  case a.channel when 'email' then c.email else c.phone end as "to",
                  coalesce(case a.channel
                    when 'email' then c.consent_marketing_email and not coalesce(c.consent_suppressed, false)
                                      and not coalesce(c.consent_bounced, false)
                    else c.consent_sms end, false) as consent_ok
             from analytics.campaign_assignments a
             left join ${rm}.customers c on c.account_id = a.account_id and c.customer_id = a.customer_id
            where a.assignment_id = $1 and a.status = $2),
         claimed as (
           update analytics.campaign_assignments a
              set status = 'sending', claimed_at = $3
             from now_state s
            where a.assignment_id = s.assignment_id and a.status = $2 and s.consent_ok and s."to" is not null
           returning a.assignment_id)
         select s."to", s.consent_ok, exists (select 1 from claimed) as claimed from now_state s`,
        [send.assignmentId, from, at],
      );
      const r = res.rows[0];
      if (!r) return { claimed: false, reason: 'gone' };
      if (r.claimed && r.to) return { claimed: true, to: r.to };
      return { claimed: false, reason: !r.to ? 'no_contact' : 'consent_withdrawn' };
    },

    async markSent(assignmentId, s) {
      await db
        .updateTable('analytics.campaign_assignments')
        .set((eb) => ({
          status: 'sent',
          url: s.url,
          provider_status: s.statusCode,
          sent_at: s.sentAt,
          // Provider error text may quote the recipient: scrubbed before it is stored (docs/privacy.md).
          last_error: s.lastFailure ? scrubPersonalText(s.lastFailure.errorClass) : null,
          last_failure_kind: s.lastFailure?.kind ?? null,
          send_attempts: eb('send_attempts', '+', s.attempts),
        }))
        .where('assignment_id', '=', assignmentId)
        .where('status', '=', 'sending')
        .execute();
    },

    async markFailed(assignmentId, f) {
      await db
        .updateTable('analytics.campaign_assignments')
        .set((eb) => ({
          status: 'failed',
          last_error: scrubPersonalText(f.error),
          provider_status: f.statusCode ?? null,
          last_failure_kind: f.failureKind,
          send_attempts: eb('send_attempts', '+', f.attempts),
        }))
        .where('assignment_id', '=', assignmentId)
        .where('status', 'in', ['planned', 'sending'])
        .execute();
    },

    async markPossiblySent(assignmentId, p) {
      await db
        .updateTable('analytics.campaign_assignments')
        .set((eb) => ({
          status: 'possibly_sent',
          sent_at: eb.ref('claimed_at'),
          last_error: scrubPersonalText(p.error),
          send_attempts: eb('send_attempts', '+', p.attempts),
        }))
        .where('assignment_id', '=', assignmentId)
        .where('status', '=', 'sending')
        .execute();
    },

    async release(assignmentId, attempts) {
      await db
        .updateTable('analytics.campaign_assignments')
        .set((eb) => ({
          status: 'planned',
          claimed_at: null,
          send_attempts: eb('send_attempts', '+', attempts),
        }))
        .where('assignment_id', '=', assignmentId)
        .where('status', '=', 'sending')
        .execute();
    },
  };
}

/** A sent message whose CampaignSent record is not yet known to be in the log. */
export interface SentSend {
  readonly assignmentId: string;
  readonly customerId: string;
  readonly campaignType: string;
  readonly channel: string;
  readonly provider: string;
  readonly trackingId: string;
  readonly url: string;
  readonly sentAt: Date;
  readonly taskId: string | null;
}

/** The columns a planned and a sent send share, named as the send's fields. */
const SEND_COLUMNS = [
  'a.assignment_id as assignmentId',
  'a.customer_id as customerId',
  'a.campaign_type as campaignType',
  'a.channel',
  'a.provider',
  'a.tracking_id as trackingId',
] as const;

/** Sent messages whose CampaignSent record has not been noted as appended, oldest first. */
export async function unappendedSends(pool: Pool, accountId: string, limit: number): Promise<SentSend[]> {
  const rows = await recomputeDb(pool)
    .selectFrom('analytics.campaign_assignments as a')
    .select([...SEND_COLUMNS, 'a.url', 'a.sent_at as sentAt', 'a.task_id as taskId'])
    .where('a.account_id', '=', accountId)
    .where('a.status', '=', 'sent')
    .where('a.event_appended_at', 'is', null)
    .orderBy('a.sent_at')
    .orderBy('a.assignment_id')
    .limit(limit)
    // A sent row has its channel, provider, tracking id, link and time (the ledger's checks).
    .$narrowType<{ channel: Channel; provider: string; trackingId: string; url: string; sentAt: Date }>()
    .execute();
  return rows;
}

export async function markAppended(pool: Pool, assignmentIds: readonly string[], at: Date): Promise<void> {
  await recomputeDb(pool)
    .updateTable('analytics.campaign_assignments')
    .set({ event_appended_at: at })
    .where('assignment_id', '=', sql<string>`any(${assignmentIds}::uuid[])`)
    .execute();
}
