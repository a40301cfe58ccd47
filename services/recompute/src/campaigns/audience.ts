import type { PoolClient } from '@holdfast/db';
import type { AudienceRules } from './campaign-types.js';

/** Where an audience is planned: the account, the run and the providers chosen per channel. */
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
}

/** How many assignments a plan wrote, per arm. */
export interface PlanResult {
  readonly planned: number;
  readonly heldOut: number;
}

/**
 * Plans this run's audiences in one statement over the account's current scores (set-based, so an
 * account of a million customers costs one query):
 *
 * 1. Type: each scored customer gets at most one campaign type, the first rule that matches —
 *    win_back (Overdue or Lapsed), replenishment (predicted next purchase within the window of the
 *    scores' as_of), vip (lifetime value in the account's top `vipShare`, and positive).
 * 2. Reach: email when an email provider is connected and the customer has an address, marketing
 *    consent, and is neither suppressed nor bounced; else SMS when an SMS provider is connected and
 *    the customer has a phone and SMS consent; else nobody is contacted.
 * 3. Cool-down: not when the customer had the same type planned, sent or held out within
 *    `cooldownDays` (failed sends do not count: the next run tries again).
 * 4. Arm: holdout customers (customer_scores.is_holdout) are written `held_out` and never sent; the
 *    rest `planned`, with a fresh tracking id.
 *
 * Steps 1–3 are the same for both arms, so the holdout rows are exactly the customers who would have
 * been sent: the comparison group of the lift report. Call inside a transaction holding the account's
 * campaign lock, so two runs cannot both pass the cool-down check.
 */
export async function planAudiences(c: PoolClient, p: PlanInput): Promise<PlanResult> {
  const rm = `"${p.readModelSchema}"`;
  const { rows } = await c.query<{ arm: 'treated' | 'holdout'; n: number }>(
    `with scored as (
       select s.customer_id, s.is_holdout, s.lifecycle_state, s.predicted_next_purchase_at, s.as_of,
              s.lifetime_value, cume_dist() over (order by s.lifetime_value) as ltv_cume
         from analytics.customer_scores s
        where s.account_id = $1),
     typed as (
       select customer_id, is_holdout,
              case
                when lifecycle_state in ('Overdue', 'Lapsed') then 'win_back'
                when predicted_next_purchase_at is not null
                     and predicted_next_purchase_at <= as_of + make_interval(days => $5) then 'replenishment'
                when lifetime_value > 0 and ltv_cume > 1 - $6::float8 then 'vip'
              end as campaign_type
         from scored),
     reachable as (
       select t.customer_id, t.is_holdout, t.campaign_type,
              case
                when $7::text is not null and c.email is not null and c.consent_marketing_email
                     and not c.consent_suppressed and not c.consent_bounced then 'email'
                when $8::text is not null and c.phone is not null and c.consent_sms then 'sms'
              end as channel
         from typed t
         join ${rm}.customers c on c.account_id = $1 and c.customer_id = t.customer_id
        where t.campaign_type is not null),
     chosen as (
       select r.* from reachable r
        where r.channel is not null
          and not exists (
            select 1 from analytics.campaign_assignments a
             where a.account_id = $1 and a.customer_id = r.customer_id and a.campaign_type = r.campaign_type
               and a.status in ('planned', 'sent', 'held_out')
               and a.assigned_at > $4::timestamptz - make_interval(days => $9))),
     inserted as (
       insert into analytics.campaign_assignments
         (assignment_id, account_id, run_id, task_id, campaign_type, customer_id, arm, channel, provider,
          status, tracking_id, assigned_at)
       select gen_random_uuid(), $1, $2, $3, campaign_type, customer_id,
              case when is_holdout then 'holdout' else 'treated' end,
              channel,
              case when channel = 'email' then $7 else $8 end,
              case when is_holdout then 'held_out' else 'planned' end,
              -- 96 random bits, lower-case hex: URL-safe and matched case-insensitively in order sources
              case when is_holdout then null else 'hft_' || left(md5(gen_random_uuid()::text), 24) end,
              $4
         from chosen
       returning arm)
     select arm, count(*)::int as n from inserted group by arm`,
    [
      p.accountId,
      p.runId,
      p.taskId,
      p.now,
      p.rules.replenishmentWindowDays,
      p.rules.vipShare,
      p.emailProvider,
      p.smsProvider,
      p.rules.cooldownDays,
    ],
  );
  const count = (arm: string): number => rows.find((r) => r.arm === arm)?.n ?? 0;
  return { planned: count('treated'), heldOut: count('holdout') };
}
