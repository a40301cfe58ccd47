import type { Pool } from '@holdfast/db';
import type { CampaignType, Channel } from './campaign-types.js';

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

/** The account's planned sends (this run's and any a crashed run left), oldest first. */
export async function plannedSends(
  pool: Pool,
  readModelSchema: string,
  accountId: string,
): Promise<PlannedSend[]> {
  const { rows } = await pool.query<{
    assignment_id: string;
    customer_id: string;
    campaign_type: CampaignType;
    channel: Channel;
    provider: string;
    tracking_id: string;
    to: string | null;
    consent_ok: boolean | null;
  }>(
    `select a.assignment_id, a.customer_id, a.campaign_type, a.channel, a.provider, a.tracking_id,
            case a.channel when 'email' then c.email else c.phone end as "to",
            case a.channel
              when 'email' then c.consent_marketing_email and not c.consent_suppressed and not c.consent_bounced
              else c.consent_sms
            end as consent_ok
       from analytics.campaign_assignments a
       left join "${readModelSchema}".customers c on c.account_id = a.account_id and c.customer_id = a.customer_id
      where a.account_id = $1 and a.status = 'planned'
      order by a.assigned_at, a.assignment_id`,
    [accountId],
  );
  return rows.map((r) => ({
    assignmentId: r.assignment_id,
    customerId: r.customer_id,
    campaignType: r.campaign_type,
    channel: r.channel,
    provider: r.provider,
    trackingId: r.tracking_id,
    to: r.to,
    consentOk: r.consent_ok === true,
  }));
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
  await pool.query(
    `update analytics.campaign_assignments
        set status = 'sent', url = $2, provider_status = $3, sent_at = $4, last_error = $6,
            last_failure_kind = $7, send_attempts = send_attempts + $5
      where assignment_id = $1 and status = 'planned'`,
    [
      assignmentId,
      s.url,
      s.statusCode,
      s.sentAt,
      s.attempts,
      s.lastFailure?.errorClass ?? null,
      s.lastFailure?.kind ?? null,
    ],
  );
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
  await pool.query(
    `update analytics.campaign_assignments
        set status = 'failed', last_error = $2, provider_status = $3, last_failure_kind = $5,
            send_attempts = send_attempts + $4
      where assignment_id = $1 and status = 'planned'`,
    [assignmentId, f.error.slice(0, 500), f.statusCode ?? null, f.attempts, f.failureKind],
  );
}

/** Sent messages whose CampaignSent record has not been noted as appended, oldest first. */
export async function unappendedSends(pool: Pool, accountId: string, limit: number): Promise<SentSend[]> {
  const { rows } = await pool.query<{
    assignment_id: string;
    customer_id: string;
    campaign_type: string;
    channel: string;
    provider: string;
    tracking_id: string;
    url: string;
    sent_at: Date;
    task_id: string | null;
  }>(
    `select assignment_id, customer_id, campaign_type, channel, provider, tracking_id, url, sent_at, task_id
       from analytics.campaign_assignments
      where account_id = $1 and status = 'sent' and event_appended_at is null
      order by sent_at, assignment_id
      limit $2`,
    [accountId, limit],
  );
  return rows.map((r) => ({
    assignmentId: r.assignment_id,
    customerId: r.customer_id,
    campaignType: r.campaign_type,
    channel: r.channel,
    provider: r.provider,
    trackingId: r.tracking_id,
    url: r.url,
    sentAt: r.sent_at,
    taskId: r.task_id,
  }));
}

export async function markAppended(pool: Pool, assignmentIds: readonly string[], at: Date): Promise<void> {
  await pool.query(
    `update analytics.campaign_assignments set event_appended_at = $2 where assignment_id = any($1::uuid[])`,
    [assignmentIds, at],
  );
}
