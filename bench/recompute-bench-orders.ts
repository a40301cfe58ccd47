// Synthetic order histories for the recompute benchmark, written with COPY straight into the read
// models (the projector is not what this benchmark measures).
import { randomUUID } from 'node:crypto';
import { Readable } from 'node:stream';
import { pipeline } from 'node:stream/promises';
import { from as copyFrom } from 'pg-copy-streams';
import { namedSql, rawQuery, type Pool } from '@holdfast/db';
import { mulberry32 as seeded } from '@holdfast/testing';

const DAY_MS = 86_400_000;

/** Gamma(shape, scale) draws (Marsaglia–Tsang; shape < 1 through the boost u^(1/shape)). */
function gammaSampler(rnd: () => number): (shape: number, scale: number) => number {
  const normal = () => Math.sqrt(-2 * Math.log(1 - rnd())) * Math.cos(2 * Math.PI * rnd());
  const draw = (shape: number): number => {
    if (shape < 1) return draw(shape + 1) * Math.pow(1 - rnd(), 1 / shape);
    const d = shape - 1 / 3;
    const c = 1 / Math.sqrt(9 * d);
    for (;;) {
      const z = normal();
      const v = Math.pow(1 + c * z, 3);
      if (v > 0 && Math.log(1 - rnd()) < 0.5 * z * z + d - d * v + d * Math.log(v)) return d * v;
    }
  };
  return (shape, scale) => draw(shape) * scale;
}

// The generating model is the one the recompute fits, with CDNOW's published parameters (weeks):
// BG/NBD r = 0.243, α = 4.414, a = 0.793, b = 2.426; Gamma-Gamma p = 6.25, q = 3.74, γ = 15.44.
const BG = { r: 0.243, alpha: 4.414, a: 0.793, b: 2.426 };
const GG = { p: 6.25, q: 3.74, gamma: 15.44 };
const WEEK_MS = 7 * DAY_MS;

/** What was loaded. */
export interface LoadedOrders {
  readonly customers: number;
  readonly orders: number;
}

/**
 * Loads `customers` customers of `accountId` (ZIPs across the US zones, store_timezone
 * America/New_York) with their orders over the two years before `asOf`, drawn
 * from BG/NBD and Gamma-Gamma at CDNOW's parameters (so the fits behave as on real data); 5% of orders
 * are half refunded and 1% cancelled. With `ordersPerCustomer`, the histories are the replenishment
 * shape instead: that many orders per customer, about weekly.
 */
export async function loadSyntheticOrders(
  pool: Pool,
  schema: string,
  accountId: string,
  customers: number,
  asOf: Date,
  ordersPerCustomer?: number,
): Promise<LoadedOrders> {
  const rnd = seeded(20_261_122);
  const gamma = gammaSampler(rnd);
  const start = asOf.getTime() - 104 * WEEK_MS;
  // The ids packed into one buffer: randomUUID's strings are ropes of several hundred bytes each, so a
  // million of them in an array would take half a gigabyte of this process's heap.
  const ids = Buffer.alloc(customers * 36);
  for (let i = 0; i < customers; i++) ids.write(randomUUID(), i * 36, 'latin1');
  const id = (i: number): string => ids.toString('latin1', i * 36, i * 36 + 36);
  let orders = 0;
  const line = (i: number, n: number, at: number, amount: string): string => {
    const refunded = rnd() < 0.05 ? (Number(amount) / 2).toFixed(2) : '0';
    const cancelled = rnd() < 0.01 ? new Date(at + DAY_MS).toISOString() : '\\N';
    const date = new Date(at).toISOString();
    orders++;
    return `${accountId}\to-${i}-${n}\t${id(i)}\tc-${i}\t${date}\t${amount}\tbench\t${refunded}\t${cancelled}\t${date}\t${date}`;
  };
  // The replenishment shape: every customer buys about weekly (5 to 9 days apart), `perCustomer`
  // times, from a start in the first weeks of the window. Rows go in round by round (every
  // customer's n-th order, then the (n+1)-th), as a live feed interleaves customers in the table.
  function* replenishmentLines(perCustomer: number): Generator<string> {
    const next = new Float64Array(customers);
    const spend = new Float64Array(customers);
    for (let i = 0; i < customers; i++) {
      next[i] = start + rnd() * 8 * WEEK_MS;
      spend[i] = 15 + 30 * rnd();
    }
    let lines: string[] = [];
    for (let n = 0; n < perCustomer; n++) {
      for (let i = 0; i < customers; i++) {
        const at = next[i]!;
        if (at >= asOf.getTime()) continue;
        lines.push(line(i, n, at, Math.max(0.01, spend[i]! * (0.8 + 0.4 * rnd())).toFixed(2)));
        next[i] = at + (5 + 4 * rnd()) * DAY_MS;
        if (lines.length >= 5000) {
          yield `${lines.join('\n')}\n`;
          lines = [];
        }
      }
    }
    if (lines.length) yield `${lines.join('\n')}\n`;
  }
  function* orderLines(): Generator<string> {
    if (ordersPerCustomer !== undefined) {
      yield* replenishmentLines(ordersPerCustomer);
      return;
    }
    let lines: string[] = [];
    for (let i = 0; i < customers; i++) {
      // Purchase rate λ ~ Gamma(r, 1/α) per week, dropout p ~ Beta(a, b), spend rate ν ~ Gamma(q, 1/γ).
      const rate = gamma(BG.r, 1 / BG.alpha);
      const x = gamma(BG.a, 1);
      const dropout = x / (x + gamma(BG.b, 1));
      const nu = gamma(GG.q, 1 / GG.gamma);
      let at = start + rnd() * 100 * WEEK_MS;
      for (let n = 0; at < asOf.getTime() && n < 200; n++) {
        lines.push(line(i, n, at, Math.max(0.01, gamma(GG.p, 1 / nu)).toFixed(2)));
        if (n > 0 && rnd() < dropout) break;
        at += (-Math.log(1 - rnd()) / Math.max(rate, 1e-9)) * WEEK_MS;
      }
      if (lines.length >= 5000) {
        yield `${lines.join('\n')}\n`;
        lines = [];
      }
    }
    if (lines.length) yield `${lines.join('\n')}\n`;
  }
  // Customers spread over the US zones by ZIP (one in eight without a ZIP, on the store's clock), so the
  // recompute's per-customer zones and local days are measured as a nationwide store has them.
  const ZIPS = ['10001', '60601', '80202', '94110', '85004', '99501', '96813', '\\N'];
  function* customerLines(): Generator<string> {
    const created = new Date(start).toISOString();
    for (let i = 0; i < customers; i += 5000) {
      const end = Math.min(customers, i + 5000);
      const lines: string[] = [];
      for (let j = i; j < end; j++) {
        const zip = ZIPS[j % ZIPS.length]!;
        lines.push(
          `${accountId}\t${id(j)}\tc-${j}\t${zip}\t${zip === '\\N' ? '\\N' : 'US'}\t${created}\t${created}`,
        );
      }
      yield `${lines.join('\n')}\n`;
    }
  }
  const client = await pool.connect();
  try {
    // The interleaved shape inserts into the by-customer index at random, which on a loaded machine
    // can outlast the pool's statement timeout.
    await rawQuery(client, 'bench-orders.no-timeout', 'set statement_timeout = 0');
    await pipeline(
      Readable.from(orderLines()),
      client.query(
        copyFrom(
          namedSql(
            'bench-orders.copy-orders',
            `copy "${schema}".orders (account_id, order_id, customer_id, external_customer_id, order_date,
          order_amount, product_name, refunded_amount, cancelled_at, first_seen_at, updated_at) from stdin`,
          ),
        ),
      ),
    );
    await pipeline(
      Readable.from(customerLines()),
      client.query(
        copyFrom(
          namedSql(
            'bench-orders.copy-customers',
            `copy "${schema}".customers (account_id, customer_id, external_id, address_zip, address_country,
          created_at, updated_at) from stdin`,
          ),
        ),
      ),
    );
    await rawQuery(
      client,
      'bench-orders.store-timezone',
      `insert into "${schema}".account_settings (account_id, store_timezone, updated_at)
       values ($1, 'America/New_York', now()) on conflict (account_id) do nothing`,
      [accountId],
    );
    // A freshly loaded table's first scan sets every row's hint bits (a write per page); a live
    // read model was vacuumed long before its nightly recompute, so measure that steady state.
    await rawQuery(
      client,
      'bench-orders.vacuum',
      `vacuum (analyze) "${schema}".orders, "${schema}".customers, "${schema}".account_settings`,
    );
    await rawQuery(client, 'bench-orders.reset-timeout', 'reset statement_timeout');
  } finally {
    client.release();
  }
  return { customers, orders };
}
