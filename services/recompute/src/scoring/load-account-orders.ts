import { to as copyTo } from 'pg-copy-streams';
import { toUtcDay, type CustomerSummary } from '@holdfast/analytics';
import type { PoolClient } from '@holdfast/db';
import { LineSplitter, nextTab, readDecimal, readInt } from './copy-text.js';
import { CustomerDays } from './customer-days.js';

const UUID = /^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$/i;
const DAY_MS = 86_400_000;

/** What the recompute reads of one account. */
export interface AccountOrders {
  /** One summary per customer with a counted order (summarizeOrders semantics). */
  readonly summaries: CustomerSummary[];
  /** Orders counted (not cancelled, with a resolved customer, on or before the as-of day). */
  readonly orders: number;
}

/** COPY needs literals (it takes no parameters): only a checked UUID and an ISO instant go in. */
export function checkedAccountId(accountId: string): string {
  if (!UUID.test(accountId)) throw new Error(`invalid account id "${accountId}"`);
  return accountId.toLowerCase();
}

/**
 * Streams the account's orders from the read model in table order (a sequential scan: ordering by
 * customer would read the heap at random) and summarises them per customer.
 *
 * - Net amount = order_amount − refunded_amount, floored at 0 (a refund larger than the order cannot
 *   make revenue negative); cancelled orders are left out, as summarizeOrders drops them.
 * - Orders without a resolved customer cannot be scored and are left out.
 * - Only orders on or before the as-of UTC day count, and T is measured to that day.
 * - The UTC day is computed by PostgreSQL, so no timestamp is parsed here.
 *
 * Returns no summaries when the read model does not exist yet (the projector has not started).
 */
export async function loadAccountOrders(
  client: PoolClient,
  readModelSchema: string,
  accountId: string,
  asOf: Date,
  unitDays: number,
): Promise<AccountOrders> {
  const account = checkedAccountId(accountId);
  const table = `"${readModelSchema}".orders`;
  const { rows } = await client.query<{ ok: boolean }>(`select to_regclass($1) is not null as ok`, [table]);
  if (!rows[0]?.ok) return { summaries: [], orders: 0 };
  const endDay = toUtcDay(asOf);
  const before = new Date((endDay + 1) * DAY_MS).toISOString();
  const days = new CustomerDays();
  const split = new LineSplitter();
  const stream = client.query(
    copyTo(`copy (
      select customer_id, (order_date at time zone 'UTC')::date - date '1970-01-01',
             greatest(order_amount - refunded_amount, 0)
        from ${table}
       where account_id = '${account}' and cancelled_at is null and customer_id is not null
         and order_date < '${before}'
    ) to stdout`),
  );
  for await (const chunk of stream as AsyncIterable<Buffer>) {
    split.push(chunk, (buf, start, end) => {
      const t1 = nextTab(buf, start, end);
      const t2 = nextTab(buf, t1 + 1, end);
      days.add(buf.toString('latin1', start, t1), readInt(buf, t1 + 1, t2), readDecimal(buf, t2 + 1, end));
    });
  }
  split.end();
  return { summaries: days.summaries(endDay, unitDays), orders: days.orders };
}

/**
 * External ids of the account's customers, by customer id, still in COPY's text escaping: they are
 * written back with COPY unchanged, so they are never decoded.
 */
export async function loadExternalIds(
  client: PoolClient,
  readModelSchema: string,
  accountId: string,
): Promise<Map<string, string>> {
  const account = checkedAccountId(accountId);
  const table = `"${readModelSchema}".customers`;
  const out = new Map<string, string>();
  const { rows } = await client.query<{ ok: boolean }>(`select to_regclass($1) is not null as ok`, [table]);
  if (!rows[0]?.ok) return out;
  const split = new LineSplitter();
  const stream = client.query(
    copyTo(`copy (
      select customer_id, external_id from ${table}
       where account_id = '${account}' and external_id is not null
    ) to stdout`),
  );
  for await (const chunk of stream as AsyncIterable<Buffer>) {
    split.push(chunk, (buf, start, end) => {
      const tab = nextTab(buf, start, end);
      out.set(buf.toString('latin1', start, tab), buf.toString('utf8', tab + 1, end));
    });
  }
  split.end();
  return out;
}
