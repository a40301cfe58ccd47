import { AUDIENCE_TYPING_CTES, DEFAULT_AUDIENCE_RULES } from '@holdfast/campaign-store';
import { rawQuery, withTransaction, type Pool } from '@holdfast/postgres';
import type { CampaignType } from '@holdfast/domain';
import type pg from 'pg';
import { orNothingYet } from '../read-side-db.js';
import { customerJsonSql } from './customer-json.js';
import type { CustomerFilter, PageParams } from './read-params.js';

/** A page of customers as JSON text: `items` is the JSON array of the first `limit` customers. */
export interface CustomerPageText {
  readonly items: string;
  /** The last customer id of `items` when more follow (the next page's cursor), else null. */
  readonly lastId: string | null;
}

/** The reporting currency of account `$1` (fx.account_currencies; USD when never set), in SQL. */
const CURRENCY = `coalesce((select reporting_currency from fx.account_currencies where account_id = $1), 'USD')`;

/**
 * The page answer of `limit + 1` rows at most, in order: the first `limit` JSON texts as one JSON
 * array (with json_agg's separator, so the bytes and the ETag are what they were), and the last id
 * shown when more follow.
 *
 * @example
 * pageText([{ customer_id: 'a', j: '{}' }, { customer_id: 'b', j: '{}' }], 1); // { items: '[{}]', lastId: 'a' }
 */
export function pageText(
  rows: readonly { readonly customer_id: string; readonly j: string }[],
  limit: number,
): CustomerPageText {
  const shown = rows.length > limit ? rows.slice(0, limit) : rows;
  return {
    items: shown.length === 0 ? '[]' : `[${shown.map((r) => r.j).join(', ')}]`,
    lastId: rows.length > limit ? shown[shown.length - 1]!.customer_id : null,
  };
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

  /** One customer (JSON text) by the client's external id; null when the key's account has none such. */
  async customer(accountId: string, externalId: string): Promise<string | null> {
    const rows = await this.rows<{ j: string }>(
      'read-api.customer',
      `select ${customerJsonSql(CURRENCY)} as j
         from ${this.rm}.customers c
         left join analytics.customer_scores s on s.account_id = $1 and s.customer_id = c.customer_id
        where c.account_id = $1 and c.external_id = $2`,
      [accountId, externalId],
    );
    return rows[0]?.j ?? null;
  }

  /**
   * A page of the account's customers matching `filter`, in customer_id order: one index range of
   * the read model's primary key, the scores joined by theirs. One row more than asked is read to
   * know whether a next page exists.
   *
   * Each customer's JSON is written by PostgreSQL (`customerJsonSql`) and the page joined here: a
   * 5,000-row page is then one text the gateway hashes and sends, instead of 135,000 values parsed
   * into objects and serialised again. Rows, not one json_agg: a window and an ordered aggregate over
   * 4.5 MB of JSON spilled to temporary files (work_mem). Without parallel workers: for a LIMIT of
   * 5,001 the planner chose a Gather Merge of two workers, which on a busy server cost more than the
   * page itself, and three backends per request (docs/performance.md, "The read API").
   */
  async customers(accountId: string, filter: CustomerFilter, page: PageParams): Promise<CustomerPageText> {
    const params: unknown[] = [accountId, page.after, page.limit];
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
    const rows = await orNothingYet(
      () =>
        withTransaction(
          this.pool,
          async (client) => {
            await client.query('set local max_parallel_workers_per_gather = 0');
            const r = await rawQuery<{ customer_id: string; j: string }>(
              client,
              'read-api.customers',
              `with currency as materialized (select ${CURRENCY} as code)
               select c.customer_id, ${customerJsonSql('(select code from currency)')} as j
                 from ${this.rm}.customers c
                 ${scored ? 'join' : 'left join'} analytics.customer_scores s
                   on s.account_id = $1 and s.customer_id = c.customer_id
                where c.account_id = $1 and ($2::uuid is null or c.customer_id > $2::uuid)
                  ${where.map((w) => `and ${w}`).join(' ')}
                order by c.customer_id
                limit $3 + 1`,
              params,
            );
            return r.rows;
          },
          { readOnly: true },
        ),
      [],
    );
    return pageText(rows, page.limit);
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
