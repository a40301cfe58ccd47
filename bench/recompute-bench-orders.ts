// Synthetic order histories for the recompute benchmark, written with binary COPY straight into the
// read models (the projector is not what this benchmark measures).
import { Readable } from 'node:stream';
import { pipeline } from 'node:stream/promises';
import { from as copyFrom } from 'pg-copy-streams';
import { inTransaction, namedSql, rawQuery, type Pool, type PoolClient } from '@holdfast/postgres';
import { mulberry32 as seeded } from '@holdfast/testing';
import { BinaryCopyWriter } from './copy-binary.js';

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

const hex8 = (h: number): string => h.toString(16).padStart(8, '0');

/** murmur3's 32-bit finaliser: a bijection, so distinct inputs give distinct outputs. */
function fmix32(h: number): number {
  h = Math.imul(h ^ (h >>> 16), 0x85ebca6b);
  h = Math.imul(h ^ (h >>> 13), 0xc2b2ae35);
  return (h ^ (h >>> 16)) >>> 0;
}

/**
 * Customer i's id (its 32 hex digits), computed instead of stored (10 M random UUIDs kept for the
 * orders would take 360 MB of the loader's heap). Scattered like random UUIDs, so sorting by customer
 * is not the load order; distinct because the first 32 bits are a bijection of i.
 */
function customerUuidHex(i: number): string {
  const a = hex8(fmix32(i ^ 0x5bd1e995));
  const b = hex8(fmix32(i + 0x27d4eb2f));
  const c = hex8(fmix32(i + 0x165667b1));
  const d = hex8(fmix32(i + 0x61c88647));
  return `${a}${b.slice(0, 4)}4${b.slice(5)}${c}${d}`;
}

/** Hundredths of an amount printed with two decimals (the text loader's `toFixed(2)`, exactly). */
const centsOf = (fixed: string): number => Math.round(Number(fixed) * 100);

/** Index and key definitions of a table, dropped before a bulk load and rebuilt after it. */
interface Deferred {
  readonly drop: string[];
  readonly create: string[];
}

/**
 * The unique/primary keys and indexes of `schema.table`, as PostgreSQL prints them: the load drops them
 * and rebuilds each once at the end (one sort) instead of inserting 24 M rows into random places of
 * three B-trees, which is what made the 10 M load take hours. Rebuilt from the catalogue's own
 * definitions, so the recompute meets exactly the indexes production has.
 */
async function deferIndexes(client: PoolClient, schema: string, table: string): Promise<Deferred> {
  const rel = `"${schema}".${table}`;
  const constraints = await rawQuery<{ name: string; def: string }>(
    client,
    'bench-orders.constraints',
    `select conname as name, pg_get_constraintdef(oid) as def from pg_constraint
      where conrelid = $1::regclass and contype in ('p', 'u')`,
    [rel],
  );
  const indexes = await rawQuery<{ name: string; def: string }>(
    client,
    'bench-orders.indexes',
    `select i.relname as name, pg_get_indexdef(i.oid) as def
       from pg_index x join pg_class i on i.oid = x.indexrelid
      where x.indrelid = $1::regclass
        and not exists (select 1 from pg_constraint c where c.conindid = i.oid)`,
    [rel],
  );
  return {
    drop: [
      ...indexes.rows.map((r) => `drop index "${schema}"."${r.name}"`),
      ...constraints.rows.map((r) => `alter table ${rel} drop constraint "${r.name}"`),
    ],
    create: [
      ...constraints.rows.map((r) => `alter table ${rel} add constraint "${r.name}" ${r.def}`),
      ...indexes.rows.map((r) => r.def),
    ],
  };
}

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
  progress: (message: string) => void = () => {},
): Promise<LoadedOrders> {
  let mark = performance.now();
  const step = (what: string) => {
    const now = performance.now();
    progress(`${what} ${((now - mark) / 1000).toFixed(1)} s`);
    mark = now;
  };
  const rnd = seeded(20_261_122);
  const gamma = gammaSampler(rnd);
  const start = asOf.getTime() - 104 * WEEK_MS;
  const id = customerUuidHex;
  const account = accountId.replaceAll('-', '');
  let orders = 0;
  // One order row, binary (the columns of the COPY below); the same draws, in the same order, as the
  // text rows it replaced: the same data.
  const line = (out: BinaryCopyWriter, i: number, n: number, at: number, amount: string): void => {
    const refunded = rnd() < 0.05 ? centsOf((Number(amount) / 2).toFixed(2)) : 0;
    const cancelled = rnd() < 0.01;
    out.row(11).uuidHex(account).text(`o-${i}-${n}`).uuidHex(id(i)).text(`c-${i}`).timestampMs(at);
    out.numericCents(centsOf(amount)).text('bench').numericCents(refunded);
    if (cancelled) out.timestampMs(at + DAY_MS);
    else out.null();
    out.timestampMs(at).timestampMs(at);
    orders++;
  };
  // The replenishment shape: every customer buys about weekly (5 to 9 days apart), `perCustomer`
  // times, from a start in the first weeks of the window. Rows go in round by round (every
  // customer's n-th order, then the (n+1)-th), as a live feed interleaves customers in the table.
  function* replenishmentLines(out: BinaryCopyWriter, perCustomer: number): Generator<Buffer> {
    const next = new Float64Array(customers);
    const spend = new Float64Array(customers);
    for (let i = 0; i < customers; i++) {
      next[i] = start + rnd() * 8 * WEEK_MS;
      spend[i] = 15 + 30 * rnd();
    }
    for (let n = 0; n < perCustomer; n++) {
      for (let i = 0; i < customers; i++) {
        const at = next[i]!;
        if (at >= asOf.getTime()) continue;
        line(out, i, n, at, Math.max(0.01, spend[i]! * (0.8 + 0.4 * rnd())).toFixed(2));
        next[i] = at + (5 + 4 * rnd()) * DAY_MS;
        yield* out.take();
      }
    }
  }
  function* orderLines(): Generator<Buffer> {
    const out = new BinaryCopyWriter();
    if (ordersPerCustomer !== undefined) {
      yield* replenishmentLines(out, ordersPerCustomer);
      yield* out.end();
      return;
    }
    for (let i = 0; i < customers; i++) {
      // Purchase rate λ ~ Gamma(r, 1/α) per week, dropout p ~ Beta(a, b), spend rate ν ~ Gamma(q, 1/γ).
      const rate = gamma(BG.r, 1 / BG.alpha);
      const x = gamma(BG.a, 1);
      const dropout = x / (x + gamma(BG.b, 1));
      const nu = gamma(GG.q, 1 / GG.gamma);
      let at = start + rnd() * 100 * WEEK_MS;
      for (let n = 0; at < asOf.getTime() && n < 200; n++) {
        line(out, i, n, at, Math.max(0.01, gamma(GG.p, 1 / nu)).toFixed(2));
        if (n > 0 && rnd() < dropout) break;
        at += (-Math.log(1 - rnd()) / Math.max(rate, 1e-9)) * WEEK_MS;
      }
      yield* out.take();
    }
    yield* out.end();
  }
  // Customers spread over the US zones by ZIP (one in eight without a ZIP, on the store's clock), so the
  // recompute's per-customer zones and local days are measured as a nationwide store has them.
  const ZIPS = ['10001', '60601', '80202', '94110', '85004', '99501', '96813', null];
  function* customerLines(): Generator<Buffer> {
    const out = new BinaryCopyWriter();
    for (let j = 0; j < customers; j++) {
      const zip = ZIPS[j % ZIPS.length] ?? null;
      out.row(7).uuidHex(account).uuidHex(id(j)).text(`c-${j}`);
      if (zip === null) out.null().null();
      else out.text(zip).text('US');
      out.timestampMs(start).timestampMs(start);
      yield* out.take();
    }
    yield* out.end();
  }
  const client = await pool.connect();
  try {
    await rawQuery(client, 'bench-orders.no-timeout', 'set statement_timeout = 0');
    // Session settings of this connection only (the shared server's configuration is not touched).
    await rawQuery(client, 'bench-orders.sort-memory', `set maintenance_work_mem = '256MB'`);
    const tables = ['orders', 'customers'] as const;
    const deferred: Deferred[] = [];
    for (const t of tables) deferred.push(await deferIndexes(client, schema, t));
    await inTransaction(client, async () => {
      for (const t of tables) {
        const rel = `"${schema}".${t}`;
        const rows = await rawQuery<{ any: boolean }>(
          client,
          'bench-orders.empty',
          `select exists (select 1 from ${rel}) as any`,
        );
        if (rows.rows[0]?.any) throw new Error(`${rel} is not empty: the bench loads a fresh database only`);
        // Unlogged: no WAL for the bulk rows (the recompute only reads these tables, the same way either
        // way). Truncated in this transaction so that COPY ... FREEZE may write the rows frozen and
        // all-visible: no hint-bit pass on the first scan, no vacuum of 24 M rows.
        await rawQuery(client, 'bench-orders.unlogged', `alter table ${rel} set unlogged`);
        await rawQuery(client, 'bench-orders.truncate', `truncate ${rel}`);
      }
      for (const d of deferred)
        for (const sql of d.drop) await rawQuery(client, 'bench-orders.drop-index', sql);
      await pipeline(
        Readable.from(orderLines()),
        client.query(
          copyFrom(
            namedSql(
              'bench-orders.copy-orders',
              `copy "${schema}".orders (account_id, order_id, customer_id, external_customer_id, order_date,
            order_amount, product_name, refunded_amount, cancelled_at, first_seen_at, updated_at) from stdin
            with (format binary, freeze)`,
            ),
          ),
        ),
      );
      step('copy orders');
      await pipeline(
        Readable.from(customerLines()),
        client.query(
          copyFrom(
            namedSql(
              'bench-orders.copy-customers',
              `copy "${schema}".customers (account_id, customer_id, external_id, address_zip, address_country,
            created_at, updated_at) from stdin with (format binary, freeze)`,
            ),
          ),
        ),
      );
    });
    step('copy customers');
    // One sort per index, the tables' indexes built side by side on the pool's other connections.
    await Promise.all(
      deferred.map(async (d) => {
        const c = await pool.connect();
        try {
          await rawQuery(c, 'bench-orders.no-timeout', 'set statement_timeout = 0');
          await rawQuery(c, 'bench-orders.sort-memory', `set maintenance_work_mem = '256MB'`);
          for (const sql of d.create) await rawQuery(c, 'bench-orders.create-index', sql);
        } finally {
          c.release();
        }
      }),
    );
    step('indexes');
    await rawQuery(
      client,
      'bench-orders.store-timezone',
      `insert into "${schema}".account_settings (account_id, store_timezone, updated_at)
       values ($1, 'America/New_York', now()) on conflict (account_id) do nothing`,
      [accountId],
    );
    // The planner's statistics, as a live read model has them (the rows are already frozen).
    await rawQuery(
      client,
      'bench-orders.analyze',
      `vacuum (analyze) "${schema}".orders, "${schema}".customers, "${schema}".account_settings`,
    );
    step('analyze');
    await rawQuery(client, 'bench-orders.reset-timeout', 'reset statement_timeout');
  } finally {
    client.release();
  }
  return { customers, orders };
}
