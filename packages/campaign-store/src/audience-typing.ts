/**
 * The audience typing rule, as SQL both its readers run: the recompute's campaign planning
 * (services/recompute/src/campaigns/audience.ts) and the gateway's GET /v1/audiences/{campaign_type}.
 * One text, so "who would be in the audience" cannot drift from who the next run plans for.
 *
 * Each scored customer of account `$1` gets at most one campaign type, the first rule that matches:
 * win_back (Overdue or Lapsed), replenishment (predicted next purchase within `$2` days of the
 * scores' as_of), vip (lifetime value in the account's top `$3` share, and positive).
 *
 * Two common table expressions, `scored` and `typed` (customer_id, external_id, is_holdout,
 * campaign_type, as_of), to follow a `with`.
 *
 * @example
 * rawQuery(c, 'audience.typed', `with ${AUDIENCE_TYPING_CTES} select * from typed`, [account, 7, 0.1]);
 */
export const AUDIENCE_TYPING_CTES = `scored as (
       select s.customer_id, s.external_id, s.is_holdout, s.lifecycle_state, s.predicted_next_purchase_at,
              s.as_of, s.lifetime_value, cume_dist() over (order by s.lifetime_value) as ltv_cume
         from analytics.customer_scores s
        where s.account_id = $1),
     typed as (
       select customer_id, external_id, is_holdout, as_of,
              case
                when lifecycle_state in ('Overdue', 'Lapsed') then 'win_back'
                when predicted_next_purchase_at is not null
                     and predicted_next_purchase_at <= as_of + make_interval(days => $2) then 'replenishment'
                when lifetime_value > 0 and ltv_cume > 1 - $3::float8 then 'vip'
              end as campaign_type
         from scored)`;

/** Tunables of the audience rules; the defaults are the documented ones. */
export interface AudienceRules {
  /** A customer gets the same campaign type at most once per this many days (default 30). */
  readonly cooldownDays: number;
  /** replenishment: the predicted next purchase falls within this many days of the scores' as_of (default 7). */
  readonly replenishmentWindowDays: number;
  /** vip: the top share of the account's customers by lifetime value (default 0.1, the top decile). */
  readonly vipShare: number;
}

export const DEFAULT_AUDIENCE_RULES: AudienceRules = Object.freeze({
  cooldownDays: 30,
  replenishmentWindowDays: 7,
  vipShare: 0.1,
});
