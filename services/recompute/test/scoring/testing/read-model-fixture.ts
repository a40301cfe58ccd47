// Test support: orders and customers written straight into the read models (the integration tests
// of the recompute itself; the pipeline test goes through the gateway, Kafka and the projector).
import { randomUUID } from 'node:crypto';
import type { Kysely } from 'kysely';
import { DEFAULT_READ_MODEL_SCHEMA, ensureReadModelSchema } from '@holdfast/read-models';
import type { TestEnv } from '@holdfast/testing';
import { mulberry32 } from '@holdfast/testing';
import { migrateAnalytics } from '@holdfast/migrations';
import { migrateRecompute } from '@holdfast/migrations';

/** Read models, the analytics schema and the recompute's own (its sync queue) in the test database. */
export async function prepareSchemas(t: TestEnv): Promise<void> {
  await ensureReadModelSchema(t.pool, DEFAULT_READ_MODEL_SCHEMA);
  await migrateAnalytics(t.db as unknown as Kysely<unknown>);
  await migrateRecompute(t.db as unknown as Kysely<unknown>);
}

export interface FixtureOrder {
  readonly customerId: string | null;
  readonly orderDate: Date;
  readonly amount: number;
  readonly refunded?: number;
  readonly cancelledAt?: Date | null;
}

/** Inserts orders with one multi-row statement per 5,000. */
export async function insertOrders(
  t: TestEnv,
  accountId: string,
  orders: readonly FixtureOrder[],
): Promise<void> {
  for (let i = 0; i < orders.length; i += 5000) {
    const chunk = orders.slice(i, i + 5000);
    await t.pool.query(
      `insert into read_models.orders (account_id, order_id, customer_id, order_date, order_amount, product_name,
         refunded_amount, cancelled_at, first_seen_at, updated_at)
       select $1, o, c, d, a, 'Tea', r, x, now(), now()
         from unnest($2::text[], $3::uuid[], $4::timestamptz[], $5::numeric[], $6::numeric[], $7::timestamptz[])
           as u(o, c, d, a, r, x)`,
      [
        accountId,
        chunk.map(() => `o-${randomUUID()}`),
        chunk.map((o) => o.customerId),
        chunk.map((o) => o.orderDate),
        chunk.map((o) => o.amount),
        chunk.map((o) => o.refunded ?? 0),
        chunk.map((o) => o.cancelledAt ?? null),
      ],
    );
  }
}

/** Inserts customers (id → external id, null for none). */
export async function insertCustomers(
  t: TestEnv,
  accountId: string,
  customers: ReadonlyMap<string, string | null>,
): Promise<void> {
  const ids = [...customers.keys()];
  await t.pool.query(
    `insert into read_models.customers (account_id, customer_id, external_id, created_at, updated_at)
     select $1, c, e, now(), now() from unnest($2::uuid[], $3::text[]) as u(c, e)`,
    [accountId, ids, ids.map((id) => customers.get(id) ?? null)],
  );
}

const DAY = 86_400_000;

/**
 * `n` customers of an account, about 40% of them repeat buyers, with orders over the year before
 * `asOf`: enough repeat customers (from about 250) for the trained model.
 */
export function simulatedOrders(
  n: number,
  asOf: Date,
  seed = 1,
): { customers: string[]; orders: FixtureOrder[] } {
  const rnd = mulberry32(seed);
  const customers = Array.from({ length: n }, () => randomUUID());
  const orders: FixtureOrder[] = [];
  for (const customerId of customers) {
    let at = asOf.getTime() - Math.floor(rnd() * 360 + 5) * DAY;
    const repeats = rnd() < 0.4 ? 1 + Math.floor(rnd() * 6) : 0;
    const gap = 10 + rnd() * 60;
    for (let k = 0; k <= repeats && at < asOf.getTime(); k++) {
      orders.push({ customerId, orderDate: new Date(at), amount: Math.round((10 + rnd() * 90) * 100) / 100 });
      at += Math.max(1, gap * (0.5 + rnd())) * DAY;
    }
  }
  return { customers, orders };
}

/**
 * `n` customers who each buy at a steady rhythm of their own and never stop (about half buy once):
 * no dropout at all, so BG/NBD's dropout Beta runs off to its limit (a → 0, b → ∞), the "optimum at
 * infinity" of docs/analytics.md §2, where some of the package's predictions come out NaN.
 */
export function steadyOrders(n: number, asOf: Date, seed = 99): FixtureOrder[] {
  const rnd = mulberry32(seed);
  const orders: FixtureOrder[] = [];
  for (let i = 0; i < n; i++) {
    const customerId = randomUUID();
    const count = rnd() < 0.5 ? 1 : 2 + Math.floor(rnd() * 5);
    const gap = 7 + Math.floor(rnd() * 60);
    const last = 1 + Math.floor(rnd() * 120);
    for (let k = 0; k < count; k++) {
      const daysAgo = last + (count - 1 - k) * gap;
      orders.push({
        customerId,
        orderDate: new Date(asOf.getTime() - daysAgo * DAY),
        amount: 20 + Math.floor(rnd() * 80),
      });
    }
  }
  return orders;
}
