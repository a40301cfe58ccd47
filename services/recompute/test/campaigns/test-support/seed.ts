// Test support: the schemas the campaign step reads and writes, and rows seeded straight into them
// (the integration tests of rules; the e2e test goes through Kafka and the projector instead).
import { randomUUID } from 'node:crypto';
import type { Kysely } from 'kysely';
import type { TestEnv } from '@holdfast/testing';
import { DEFAULT_READ_MODEL_SCHEMA, ensureReadModelSchema } from '@holdfast/read-models';
import { migrateAnalytics } from '@holdfast/migrations';
import { migrateCampaigns } from '@holdfast/migrations';

/** Read models, analytics.customer_scores and the campaign tables in the test database. */
export async function prepareCampaignSchemas(t: TestEnv): Promise<void> {
  await ensureReadModelSchema(t.pool, DEFAULT_READ_MODEL_SCHEMA);
  await migrateAnalytics(t.db as unknown as Kysely<unknown>);
  await migrateCampaigns(t.db as unknown as Kysely<unknown>);
}

export interface SeedCustomer {
  readonly customerId?: string;
  readonly externalId?: string | null;
  readonly email?: string | null;
  readonly phone?: string | null;
  readonly marketingEmail?: boolean;
  readonly sms?: boolean;
  readonly suppressed?: boolean;
  readonly bounced?: boolean;
}

export async function insertCustomer(t: TestEnv, accountId: string, c: SeedCustomer = {}): Promise<string> {
  const id = c.customerId ?? randomUUID();
  await t.pool.query(
    `insert into read_models.customers (account_id, customer_id, external_id, email, phone, consent_marketing_email,
       consent_sms, consent_suppressed, consent_bounced, created_at, updated_at)
     values ($1, $2, $3, $4, $5, $6, $7, $8, $9, now(), now())`,
    [
      accountId,
      id,
      c.externalId ?? null,
      c.email === undefined ? `${id.slice(0, 8)}@example.com` : c.email,
      c.phone ?? null,
      c.marketingEmail ?? true,
      c.sms ?? false,
      c.suppressed ?? false,
      c.bounced ?? false,
    ],
  );
  return id;
}

export interface SeedScore {
  readonly lifecycleState?: 'Stable' | 'Slowing' | 'Overdue' | 'Lapsed';
  readonly predictedNextPurchaseAt?: Date | null;
  readonly lifetimeValue?: number;
  readonly isHoldout?: boolean;
  readonly asOf: Date;
}

export async function insertScore(
  t: TestEnv,
  accountId: string,
  customerId: string,
  s: SeedScore,
): Promise<void> {
  await t.pool.query(
    `insert into analytics.customer_scores (account_id, customer_id, external_id, churn_risk, lifecycle_state, p_alive,
       predicted_next_purchase_at, expected_purchases, expected_spend, realised_revenue, predicted_value,
       lifetime_value, is_holdout, model, model_params, horizon_days, as_of)
     values ($1, $2, null, 0.2, $3, 0.8, $4, 1, 50, 100, 50, $5, $6, 'heuristic', '{}', 365, $7)`,
    [
      accountId,
      customerId,
      s.lifecycleState ?? 'Stable',
      s.predictedNextPurchaseAt ?? null,
      s.lifetimeValue ?? 100,
      s.isHoldout ?? false,
      s.asOf,
    ],
  );
}

export interface SeedOrder {
  readonly orderId?: string;
  readonly customerId: string;
  readonly orderDate: Date;
  readonly amount?: number;
  readonly refunded?: number;
  readonly source?: string | null;
  readonly cancelledAt?: Date | null;
}

export async function insertOrder(t: TestEnv, accountId: string, o: SeedOrder): Promise<string> {
  const id = o.orderId ?? `o-${randomUUID().slice(0, 8)}`;
  await t.pool.query(
    `insert into read_models.orders (account_id, order_id, customer_id, order_date, order_amount, product_name, source,
       refunded_amount, cancelled_at, first_seen_at, updated_at)
     values ($1, $2, $3, $4, $5, 'Tea', $6, $7, $8, now(), now())`,
    [
      accountId,
      id,
      o.customerId,
      o.orderDate,
      o.amount ?? 100,
      o.source ?? null,
      o.refunded ?? 0,
      o.cancelledAt ?? null,
    ],
  );
  return id;
}
