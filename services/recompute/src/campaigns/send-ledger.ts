import { sql, type Pool } from '@holdfast/db';
import { recomputeDb } from '../recompute-database.js';
import type { CampaignType } from '@holdfast/domain';
import type { Channel } from './campaign-types.js';

/** A planned send with the contact it goes to, read at send time (never stored in analytics). */
export interface PlannedSend {
  readonly assignmentId: string;
  readonly customerId: string;
  readonly campaignType: CampaignType;
  readonly channel: Channel;
  readonly provider: string;
  readonly trackingId: string;
  /** Email or phone; null when the customer has none any more. */
  readonly to: string | null;
  /** Whether the customer still consents to the channel (consent may change between plan and send). */
  readonly consentOk: boolean;
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

/** The account's planned sends (this run's and any a crashed run left), oldest first. */
export async function plannedSends(
  pool: Pool,
  readModelSchema: string,
  accountId: string,
): Promise<PlannedSend[]> {
  const rows = await recomputeDb(pool)
    .withSchema(readModelSchema)
    .selectFrom('analytics.campaign_assignments as a')
    .leftJoin('customers as c', (j) =>
      j.onRef('c.account_id', '=', 'a.account_id').onRef('c.customer_id', '=', 'a.customer_id'),
    )
    .select((eb) => [
      ...SEND_COLUMNS,
      eb.case('a.channel').when('email').then(eb.ref('c.email')).else(eb.ref('c.phone')).end().as('to'),
      eb
        .case('a.channel')
        .when('email')
        .then(
          eb.and([
            eb.ref('c.consent_marketing_email').$notNull(),
            eb.not(eb.ref('c.consent_suppressed').$notNull()),
            eb.not(eb.ref('c.consent_bounced').$notNull()),
          ]),
        )
        .else(eb.ref('c.consent_sms'))
        .end()
        .as('consentOk'),
    ])
    .where('a.account_id', '=', accountId)
    .where('a.status', '=', 'planned')
    .orderBy('a.assigned_at')
    .orderBy('a.assignment_id')
    // A planned row has its channel, provider and tracking id (the ledger's checks).
    .$narrowType<{ campaignType: CampaignType; channel: Channel; provider: string; trackingId: string }>()
    .execute();
  return rows.map((r) => ({ ...r, consentOk: r.consentOk === true }));
}

/**
 * planned → sent, with the link the message carried, after `attempts` attempts; a failure retried
 * before the success stays recorded as the last error (its class and kind).
 */
export async function markSent(
  pool: Pool,
  assignmentId: string,
  s: {
    url: string;
    statusCode: number | null;
    sentAt: Date;
    attempts: number;
    lastFailure: { errorClass: string; kind: 'retriable' | 'permanent' } | null;
  },
): Promise<void> {
  await recomputeDb(pool)
    .updateTable('analytics.campaign_assignments')
    .set((eb) => ({
      status: 'sent',
      url: s.url,
      provider_status: s.statusCode,
      sent_at: s.sentAt,
      last_error: s.lastFailure?.errorClass ?? null,
      last_failure_kind: s.lastFailure?.kind ?? null,
      send_attempts: eb('send_attempts', '+', s.attempts),
    }))
    .where('assignment_id', '=', assignmentId)
    .where('status', '=', 'planned')
    .execute();
}

/**
 * planned → failed, with why: the provider's last error class after `attempts` attempts, or a refusal
 * before any attempt (no contact, consent withdrawn, no unsubscribe URL; `attempts` 0).
 */
export async function markFailed(
  pool: Pool,
  assignmentId: string,
  f: { error: string; failureKind: 'retriable' | 'permanent'; statusCode?: number | null; attempts: number },
): Promise<void> {
  await recomputeDb(pool)
    .updateTable('analytics.campaign_assignments')
    .set((eb) => ({
      status: 'failed',
      last_error: f.error.slice(0, 500),
      provider_status: f.statusCode ?? null,
      last_failure_kind: f.failureKind,
      send_attempts: eb('send_attempts', '+', f.attempts),
    }))
    .where('assignment_id', '=', assignmentId)
    .where('status', '=', 'planned')
    .execute();
}

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
