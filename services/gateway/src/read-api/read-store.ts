import { AUDIENCE_TYPING_CTES, DEFAULT_AUDIENCE_RULES, rawQuery, type Pool } from '@holdfast/db';
import type { CampaignType } from '@holdfast/domain';
import type pg from 'pg';
import { orNothingYet } from '../read-side-db.js';
import type { CustomerFilter, PageParams } from './read-params.js';

/** A customer's profile (read model `customers`) beside its current scores (analytics.customer_scores). */
export interface CustomerRecord {
  readonly customer_id: string;
  readonly external_id: string | null;
  readonly email: string | null;
  readonly phone: string | null;
  readonly name: string | null;
  readonly address_street: string | null;
  readonly address_city: string | null;
  readonly address_state: string | null;
  readonly address_zip: string | null;
  readonly address_country: string | null;
  readonly consent_marketing_email: boolean;
  readonly consent_sms: boolean;
  readonly consent_suppressed: boolean;
  readonly consent_bounced: boolean;
  readonly subscription_status: string | null;
  readonly subscription_started_at: Date | null;
  readonly created_at: Date;
  readonly updated_at: Date;
  /** The rest is null when the customer has not been scored yet. */
  readonly churn_risk: number | null;
  readonly p_alive: number | null;
  readonly lifecycle_state: string | null;
  readonly expected_purchases: number | null;
  readonly horizon_days: number | null;
  readonly predicted_next_purchase_at: Date | null;
  readonly lifetime_value: number | null;
  readonly model: string | null;
  readonly as_of: Date | null;
}

/** A holdout member or an audience member. */
export interface MemberRecord {
  readonly customer_id: string;
  readonly external_id: string | null;
}

/** A lift report row (analytics.lift_reports). */
export interface LiftRecord {
  readonly campaign_type: string;
  readonly period_start: Date;
  readonly period_end: Date;
  readonly treated_customers: number;
  readonly holdout_customers: number;
  readonly lift: number | null;
  readonly ci_low: number | null;
  readonly ci_high: number | null;
  readonly p_value_greater: number | null;
  readonly significant: boolean;
  readonly mde: number | null;
  readonly incremental_revenue: number | null;
  readonly billable_revenue: number;
  readonly settlement_status: 'provisional' | 'final';
  readonly settles_at: Date | null;
  readonly settled_at: Date | null;
  readonly final_billable_revenue: number | null;
  readonly computed_at: Date;
}

const CUSTOMER_COLUMNS = `c.customer_id, c.external_id, c.email, c.phone, c.name, c.address_street, c.address_city,
       c.address_state, c.address_zip, c.address_country, c.consent_marketing_email, c.consent_sms,
       c.consent_suppressed, c.consent_bounced, c.subscription_status, c.subscription_started_at,
       c.created_at, c.updated_at, s.churn_risk, s.p_alive, s.lifecycle_state, s.expected_purchases,
       s.horizon_days, s.predicted_next_purchase_at, s.lifetime_value, s.model, s.as_of`;

/**
 * The reads of the /v1/ read routes. Every statement filters on the caller's account id first (the
 * key's account, never a request field), so another account's ids find nothing: a 404, never its
 * data. Before the projector or the recompute has created a table, the reads answer "nothing yet".
 * Lists are keyset pages on customer_id (the primary keys of both tables), one index range each.
 */
export class ReadStore {
  private readonly rm: string;

  constructor(
    private readonly pool: Pool,
    readModelSchema: string,
  ) {
    this.rm = `"${readModelSchema.replace(/"/g, '""')}"`;
  }

  private rows<R extends object>(name: string, text: string, params: readonly unknown[]): Promise<R[]> {
    return orNothingYet(
      async () => (await rawQuery<R & pg.QueryResultRow>(this.pool, name, text, params)).rows,
      [],
    );
  }

  /** One customer by the client's external id, with its scores; null when the account has none such. */
  async customer(accountId: string, externalId: string): Promise<CustomerRecord | null> {
    const rows = await this.rows<CustomerRecord>(
      'read-api.customer',
      `select ${CUSTOMER_COLUMNS}
             from ${this.rm}.customers c
             left join analytics.customer_scores s on s.account_id = $1 and s.customer_id = c.customer_id
            where c.account_id = $1 and c.external_id = $2`,
      [accountId, externalId],
    );
    return rows[0] ?? null;
  }

  /** A page of the account's customers matching `filter`, in customer_id order (one row more than asked: is there a next page). */
  async customers(accountId: string, filter: CustomerFilter, page: PageParams): Promise<CustomerRecord[]> {
    const params: unknown[] = [accountId, page.after, page.limit + 1];
    const where: string[] = [];
    const scored =
      filter.lifecycleState !== null || filter.churnRiskMin !== null || filter.churnRiskMax !== null;
    if (filter.lifecycleState !== null)
      where.push(`s.lifecycle_state = $${params.push(filter.lifecycleState)}`);
    if (filter.churnRiskMin !== null) where.push(`s.churn_risk >= $${params.push(filter.churnRiskMin)}`);
    if (filter.churnRiskMax !== null) where.push(`s.churn_risk <= $${params.push(filter.churnRiskMax)}`);
    if (filter.updatedSince !== null) {
      const p = params.push(filter.updatedSince);
      where.push(`(c.updated_at >= $${p} or s.as_of >= $${p})`);
    }
    const rows = await this.rows<CustomerRecord>(
      'read-api.customers',
      `select ${CUSTOMER_COLUMNS}
             from ${this.rm}.customers c
             ${scored ? 'join' : 'left join'} analytics.customer_scores s
               on s.account_id = $1 and s.customer_id = c.customer_id
            where c.account_id = $1 and ($2::uuid is null or c.customer_id > $2::uuid)
              ${where.map((w) => `and ${w}`).join(' ')}
            order by c.customer_id
            limit $3`,
      params,
    );
    return rows;
  }

  /** A page of the current holdout (the is_holdout of the account's latest scores), in customer_id order. */
  async holdout(accountId: string, page: PageParams): Promise<MemberRecord[]> {
    const rows = await this.rows<MemberRecord>(
      'read-api.holdout',
      `select customer_id, external_id from analytics.customer_scores
            where account_id = $1 and is_holdout and ($2::uuid is null or customer_id > $2::uuid)
            order by customer_id limit $3`,
      [accountId, page.after, page.limit + 1],
    );
    return rows;
  }

  /**
   * A page of who the audience typing rule (`AUDIENCE_TYPING_CTES`, the one the recompute plans
   * with, default rules) puts in `type` now, holdout excluded, in customer_id order.
   */
  async audience(accountId: string, type: CampaignType, page: PageParams): Promise<MemberRecord[]> {
    const rules = DEFAULT_AUDIENCE_RULES;
    const rows = await this.rows<MemberRecord>(
      'read-api.audience',
      `with ${AUDIENCE_TYPING_CTES}
           select customer_id, external_id from typed
            where campaign_type = $4 and not is_holdout and ($5::uuid is null or customer_id > $5::uuid)
            order by customer_id limit $6`,
      [accountId, rules.replenishmentWindowDays, rules.vipShare, type, page.after, page.limit + 1],
    );
    return rows;
  }

  /** When the account's current scores were computed (null: never scored). */
  async scoredAt(accountId: string): Promise<Date | null> {
    const rows = await this.rows<{ as_of: Date }>(
      'read-api.scored-at',
      `select as_of from analytics.customer_scores where account_id = $1 limit 1`,
      [accountId],
    );
    return rows[0]?.as_of ?? null;
  }

  /** The account's lift reports, of one type or all, newest period first. */
  lift(accountId: string, type: string | null): Promise<LiftRecord[]> {
    return this.rows<LiftRecord>(
      'read-api.lift',
      `select campaign_type, period_start, period_end, treated_customers, holdout_customers, lift, ci_low,
              ci_high, p_value_greater, significant, mde, incremental_revenue, billable_revenue,
              settlement_status, settles_at, settled_at, final_billable_revenue, computed_at
         from analytics.lift_reports
        where account_id = $1 and ($2::text is null or campaign_type = $2)
        order by period_start desc, campaign_type`,
      [accountId, type],
    );
  }

  /** The account's reporting currency (fx.account_currencies; USD when never set). */
  async reportingCurrency(accountId: string): Promise<string> {
    const rows = await this.rows<{ reporting_currency: string }>(
      'read-api.reporting-currency',
      `select reporting_currency from fx.account_currencies where account_id = $1`,
      [accountId],
    );
    return rows[0]?.reporting_currency ?? 'USD';
  }
}
