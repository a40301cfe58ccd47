import { qualified, rawQuery, type PoolClient } from '@holdfast/postgres';
import type { FxSnapshot } from './fx-snapshot.js';

/** Every schema holding a converting orders table: the live read models and any rebuild beside them. */
export async function convertingSchemas(client: PoolClient): Promise<string[]> {
  const { rows } = await rawQuery<{ schema: string }>(
    client,
    'reconvert-orders.converting-schemas',
    `select table_schema::text as schema from information_schema.columns
      where table_name = 'orders' and column_name = 'fx_status' order by 1`,
  );
  return rows.map((r) => r.schema);
}

/**
 * Re-converts stored orders (of one account, or all) with `fx`: one conversion per account, currency
 * and UTC day of the orders, written where it differs. Converted amounts are generated columns, so
 * they follow. `updated_at` is left alone: it dates the records, and a rebuild converting from the
 * same rates writes the same rows. The caller holds the exclusive fx lock (FX_LOCK_SQL) in `client`'s
 * transaction. Returns the number of orders changed.
 */
export async function reconvertOrders(
  client: PoolClient,
  schema: string,
  fx: FxSnapshot,
  accountId?: string,
): Promise<number> {
  const orders = qualified(schema, 'orders');
  const { rows } = await rawQuery<{ account_id: string; currency: string; day: string }>(
    client,
    'reconvert-orders.order-days',
    `select account_id::text, currency, ((order_date at time zone 'UTC')::date)::text as day
       from ${orders} ${accountId ? 'where account_id = $1' : ''} group by 1, 2, 3`,
    accountId ? [accountId] : [],
  );
  if (!rows.length) return 0;
  const cols: unknown[][] = [[], [], [], [], [], [], [], []];
  for (const r of rows) {
    const c = fx.conversion(r.account_id, r.currency, `${r.day}T00:00:00Z`);
    [r.account_id, r.currency, r.day, c.to, c.rate, c.minorUnits, c.rateDay, c.status].forEach((v, i) =>
      cols[i]!.push(v),
    );
  }
  const result = await rawQuery(
    client,
    'reconvert-orders.reconvert',
    `update ${orders} o set reporting_currency = g.rc, fx_rate = g.fr::numeric, fx_minor_units = g.mu,
            fx_rate_date = g.frd::date, fx_status = g.fs
       from unnest($1::uuid[], $2::text[], $3::date[], $4::text[], $5::text[], $6::int[], $7::text[], $8::text[])
         as g(a, cur, d, rc, fr, mu, frd, fs)
      where o.account_id = g.a and o.currency = g.cur and (o.order_date at time zone 'UTC')::date = g.d
        and (o.reporting_currency, o.fx_rate, o.fx_minor_units, o.fx_rate_date, o.fx_status)
            is distinct from (g.rc, g.fr::numeric, g.mu::smallint, g.frd::date, g.fs)`,
    cols,
  );
  return result.rowCount ?? 0;
}
