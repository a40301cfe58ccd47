import { randomBytes } from 'node:crypto';
import {
  claimCountsForCap,
  countsForCap,
  decideSend,
  type CampaignType,
  type SendChannel,
  type SendDecisionKind,
  type SendSettings,
} from '@holdfast/domain';
import { AUDIENCE_TYPING_CTES } from '@holdfast/campaign-store';
import { rawQuery, type PoolClient } from '@holdfast/postgres';
import type { AudienceRules } from './campaign-types.js';
import type { AccountCampaignSettings } from './campaign-settings.js';
import { buildCtaUrl } from './cta-url.js';

/** Where an audience is planned: the account, the run, its settings and the providers per channel. */
export interface PlanInput {
  readonly accountId: string;
  readonly runId: string;
  readonly taskId: string | null;
  readonly now: Date;
  readonly readModelSchema: string;
  /** The provider email goes through (null: email is not connected). */
  readonly emailProvider: string | null;
  readonly smsProvider: string | null;
  readonly rules: AudienceRules;
  readonly settings: AccountCampaignSettings;
  /** Normalised storefront domain: the link of a simulated (sandbox) send is built at plan time. */
  readonly storefrontDomain: string;
}

/** How many ledger rows a plan wrote, per decision (cooling_down is not recorded). */
export type PlanResult = Readonly<Record<Exclude<SendDecisionKind, 'cooling_down'>, number>>;

/** The provider name recorded on simulated sends of sandbox accounts. */
export const SANDBOX_PROVIDER = 'sandbox';

interface Candidate {
  customer_id: string;
  campaign_type: CampaignType;
  is_holdout: boolean;
  has_email: boolean;
  email_consent: boolean;
  email_suppressed: boolean;
  has_phone: boolean;
  sms_consent: boolean;
  recent_types: string[] | null;
  recent_at: Date[] | null;
  recent_status: string[] | null;
  /** The customer's members of merchant send claims not folded into the ledger yet. */
  claim_types: string[] | null;
  claim_at: Date[] | null;
  claim_expires: Date[] | null;
  claim_confirmed: (Date | null)[] | null;
}

/**
 * Plans this run's audiences over the account's current scores:
 *
 * 1. Type (one query): each scored customer gets at most one campaign type, the first rule that matches
 *    (`AUDIENCE_TYPING_CTES` of @holdfast/campaign-store, which GET /v1/audiences runs too) — win_back (Overdue or
 *    Lapsed), replenishment (predicted next purchase within the window of the scores' as_of), vip
 *    (lifetime value in the account's top `vipShare`, and positive). The same query
 *    reads the customer's contact state and recent counted decisions (planned, sent, held_out,
 *    sandbox_simulated) within the longer of the cool-down and the frequency-cap windows.
 * 2. Decision per customer: `decideSend` (@holdfast/domain; enabled type, cool-down, reach, frequency
 *    cap, holdout, sandbox), recorded as a ledger row (except cooling_down, whose earlier row stands,
 *    and a decision not to send that was already recorded for the same type within the cool-down).
 *    `send` rows are `planned` with a fresh tracking id; `sandbox_simulated` rows get a tracking id and
 *    their link but are never sent.
 *
 * The steps before the holdout are the same for both arms, so the held_out rows are exactly the
 * customers who would have been sent: the comparison group of the lift report. Call inside a
 * transaction holding the account's campaign lock, so two runs cannot both pass the cap.
 */
export async function planAudiences(c: PoolClient, p: PlanInput): Promise<PlanResult> {
  const rm = `"${p.readModelSchema}"`;
  const windowDays = Math.max(p.rules.cooldownDays, p.settings.frequencyCap.days);
  // Window function over the account's scores, lateral history: analytic SQL, raw and named.
  const { rows } = await rawQuery<Candidate>(
    c,
    'audience.candidates',
    `with ${AUDIENCE_TYPING_CTES}
     select t.customer_id, t.campaign_type, t.is_holdout,
            c.email is not null as has_email, coalesce(c.consent_marketing_email, false) as email_consent,
            (coalesce(c.consent_suppressed, false) or coalesce(c.consent_bounced, false)) as email_suppressed,
            c.phone is not null as has_phone, coalesce(c.consent_sms, false) as sms_consent,
            r.types as recent_types, r.ats as recent_at, r.statuses as recent_status,
            k.claim_types, k.claim_at, k.claim_expires, k.claim_confirmed
       from typed t
       join ${rm}.customers c on c.account_id = $1 and c.customer_id = t.customer_id
       left join lateral (
         select array_agg(a.campaign_type) as types, array_agg(a.assigned_at) as ats,
                array_agg(a.status) as statuses
           from analytics.campaign_assignments a
          where a.account_id = $1 and a.customer_id = t.customer_id and a.status <> 'failed'
            and a.assigned_at > $4::timestamptz - make_interval(days => $5)) r on true
       left join lateral (
         select array_agg(sc.campaign_type) as claim_types, array_agg(sc.claimed_at) as claim_at,
                array_agg(sc.expires_at) as claim_expires, array_agg(sc.confirmed_at) as claim_confirmed
           from control.send_claim_members m
           join control.send_claims sc on sc.send_id = m.send_id
          where m.account_id = $1 and m.customer_id = t.customer_id and sc.folded_at is null
            and sc.claimed_at > $4::timestamptz - make_interval(days => $5)) k on true
      where t.campaign_type is not null
      order by t.customer_id`,
    [p.accountId, p.rules.replenishmentWindowDays, p.rules.vipShare, p.now, windowDays],
  );
  const channels = new Set<SendChannel>();
  if (p.emailProvider) channels.add('email');
  if (p.smsProvider) channels.add('sms');
  const settings: SendSettings = {
    enabledTypes: p.settings.enabledTypes,
    frequencyCap: p.settings.frequencyCap,
    cooldownDays: p.rules.cooldownDays,
    channels,
    sandbox: p.settings.sandbox,
  };
  const counts: Record<Exclude<SendDecisionKind, 'cooling_down'>, number> = {
    send: 0,
    held_out: 0,
    sandbox_simulated: 0,
    capped: 0,
    no_consent: 0,
    suppressed: 0,
    disabled: 0,
  };
  const cols = {
    customer: [] as string[],
    type: [] as string[],
    arm: [] as string[],
    channel: [] as (string | null)[],
    provider: [] as (string | null)[],
    status: [] as string[],
    tracking: [] as (string | null)[],
    url: [] as (string | null)[],
  };
  for (const row of rows) {
    const history = (row.recent_types ?? []).map((type, i) => ({
      campaignType: type,
      at: new Date(row.recent_at![i]!),
      status: row.recent_status![i]!,
    }));
    // A merchant's claim not folded yet counts while it is open or confirmed (claimCountsForCap).
    const claims = (row.claim_types ?? []).flatMap((type, i) =>
      claimCountsForCap(
        { expiresAt: new Date(row.claim_expires![i]!), confirmedAt: row.claim_confirmed![i] ?? null },
        p.now,
      )
        ? [{ campaignType: type, at: new Date(row.claim_at![i]!) }]
        : [],
    );
    const recent = [...history.filter((h) => countsForCap(h.status)), ...claims];
    const d = decideSend(
      {
        isHoldout: row.is_holdout,
        hasEmail: row.has_email,
        emailConsent: row.email_consent,
        emailSuppressed: row.email_suppressed,
        hasPhone: row.has_phone,
        smsConsent: row.sms_consent,
      },
      { type: row.campaign_type },
      settings,
      recent,
      p.now,
    );
    if (d.kind === 'cooling_down') continue;
    // A decision not to send is recorded once per type and cool-down: re-recording "no consent" for
    // the same customer every night would bloat the ledger without telling anything new.
    const cooldownStart = p.now.getTime() - p.rules.cooldownDays * 86_400_000;
    if (
      !countsForCap(d.kind === 'send' ? 'planned' : d.kind) &&
      history.some(
        (h) => h.status === d.kind && h.campaignType === row.campaign_type && h.at.getTime() > cooldownStart,
      )
    )
      continue;
    counts[d.kind]++;
    const channel = 'channel' in d ? d.channel : null;
    const provider =
      channel === null
        ? null
        : p.settings.sandbox
          ? SANDBOX_PROVIDER
          : channel === 'email'
            ? p.emailProvider
            : p.smsProvider;
    // 96 random bits, lower-case hex: URL-safe and matched case-insensitively in order sources.
    const tracking =
      d.kind === 'send' || d.kind === 'sandbox_simulated' ? `hft_${randomBytes(12).toString('hex')}` : null;
    cols.customer.push(row.customer_id);
    cols.type.push(row.campaign_type);
    cols.arm.push(row.is_holdout ? 'holdout' : 'treated');
    cols.channel.push(channel);
    cols.provider.push(provider);
    cols.status.push(d.kind === 'send' ? 'planned' : d.kind);
    cols.tracking.push(tracking);
    cols.url.push(
      d.kind === 'sandbox_simulated' && channel
        ? buildCtaUrl(p.storefrontDomain, channel, row.campaign_type, tracking!)
        : null,
    );
  }
  const CHUNK = 20_000;
  for (let i = 0; i < cols.customer.length; i += CHUNK) {
    const part = <T>(a: T[]): T[] => a.slice(i, i + CHUNK);
    // unnest bulk insert: one statement per chunk of 20,000 rows.
    await rawQuery(
      c,
      'audience.insert-assignments',
      `insert into analytics.campaign_assignments
         (assignment_id, account_id, run_id, task_id, campaign_type, customer_id, arm, channel, provider,
          status, tracking_id, url, assigned_at, sent_at)
       select gen_random_uuid(), $1, $2, $3, u.campaign_type, u.customer_id, u.arm, u.channel, u.provider,
              u.status, u.tracking_id, u.url, $4,
              case when u.status = 'sandbox_simulated' then $4::timestamptz end
         from unnest($5::uuid[], $6::text[], $7::text[], $8::text[], $9::text[], $10::text[], $11::text[], $12::text[])
           as u(customer_id, campaign_type, arm, channel, provider, status, tracking_id, url)`,
      [
        p.accountId,
        p.runId,
        p.taskId,
        p.now,
        part(cols.customer),
        part(cols.type),
        part(cols.arm),
        part(cols.channel),
        part(cols.provider),
        part(cols.status),
        part(cols.tracking),
        part(cols.url),
      ],
    );
  }
  return counts;
}
