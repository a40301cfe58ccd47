// The recompute benchmark: N customers' orders generated straight into read_models.orders of a
// throwaway database (COPY), then one recompute of the account, timed by phase.
//
//   npm run bench -w @holdfast/recompute -- [customers=1000000] [--orders-per-customer K] [--keep]
//     [--runs N] [--reuse DB]
//
// DATABASE_URL (or the running stack's env file) names the server; a database hf_bench_recompute_<id>
// is created on it and dropped afterwards unless --keep is given. --reuse DB recomputes a kept
// database again without loading; --runs N recomputes N times (the machine may be shared: look at
// node_cpu_seconds beside the wall time). --orders-per-customer K loads the replenishment shape (K
// orders per customer, about weekly) instead of the CDNOW-like one. Prints one JSON line per run.
import { randomBytes, randomUUID } from 'node:crypto';
import { readFileSync } from 'node:fs';
import { homedir, loadavg } from 'node:os';
import { join } from 'node:path';
import type { Kysely } from 'kysely';
import pg from 'pg';
import { createDb, createPool, rawQuery } from '@holdfast/postgres';
import { DEFAULT_READ_MODEL_SCHEMA, ensureReadModelSchema } from '@holdfast/read-models';
import { migrateAnalytics } from '@holdfast/migrations';
import { recomputeDb } from '../services/recompute/src/recompute-database.js';
import { recomputeAccount } from '../services/recompute/src/scoring/recompute-account.js';
import { loadSyntheticOrders } from './recompute-bench-orders.js';

function serverUrl(): string {
  if (process.env.DATABASE_URL) return process.env.DATABASE_URL;
  const file = join(process.env.HOLDFAST_CACHE ?? join(homedir(), '.cache', 'holdfast'), 'run', 'env.json');
  try {
    return (JSON.parse(readFileSync(file, 'utf8')) as { DATABASE_URL: string }).DATABASE_URL;
  } catch {
    throw new Error('DATABASE_URL is not set and no running stack was found: start it with `npm start`');
  }
}

async function admin(url: string, statement: string): Promise<void> {
  const u = new URL(url);
  u.pathname = '/postgres';
  const c = new pg.Client({ connectionString: u.toString() });
  await c.connect();
  try {
    await rawQuery(c, 'recompute-bench.admin', statement);
  } finally {
    await c.end();
  }
}

const args = process.argv.slice(2);
const flag = (name: string): string | undefined => {
  const at = args.indexOf(name);
  return at === -1 ? undefined : args[at + 1];
};
const customers = Number(args.find((a) => /^\d+$/.test(a)) ?? 1_000_000);
const reuse = flag('--reuse');
const runs = Number(flag('--runs') ?? 1);
const perCustomer = flag('--orders-per-customer');
const ordersPerCustomer = perCustomer === undefined ? undefined : Number(perCustomer);
const keep = args.includes('--keep') || reuse !== undefined;
const base = serverUrl();
const name = reuse ?? `hf_bench_recompute_${randomBytes(3).toString('hex')}`;
const url = new URL(base);
url.pathname = `/${name}`;
if (!reuse) await admin(base, `create database "${name}"`);
// bench-orders lifts statement_timeout for its bulk load: no client-side bound either.
const pool = createPool(url.toString(), 'recompute-bench', 4, { queryTimeoutMs: 0 });
const seconds = (ms: number) => Number((ms / 1000).toFixed(1));
const asOf = new Date('2026-11-22T02:00:00Z');
try {
  await ensureReadModelSchema(pool, DEFAULT_READ_MODEL_SCHEMA);
  await migrateAnalytics(createDb(pool) as Kysely<unknown>);
  let accountId: string;
  if (reuse) {
    const row = await recomputeDb(pool)
      .withSchema(DEFAULT_READ_MODEL_SCHEMA)
      .selectFrom('customers')
      .select('account_id as id')
      .limit(1)
      .executeTakeFirst();
    if (!row) throw new Error(`database ${name} holds no benchmark account`);
    accountId = row.id;
  } else {
    accountId = randomUUID();
    const t = performance.now();
    const loadCpu = process.cpuUsage();
    const loaded = await loadSyntheticOrders(
      pool,
      DEFAULT_READ_MODEL_SCHEMA,
      accountId,
      customers,
      asOf,
      ordersPerCustomer,
      (m) => console.error(`load: ${m}`),
    );
    const used = process.cpuUsage(loadCpu);
    console.error(
      `loaded ${loaded.customers} customers, ${loaded.orders} orders in ${seconds(performance.now() - t)} s ` +
        `(loader CPU ${seconds((used.user + used.system) / 1000)} s, load average ${loadavg()[0]!.toFixed(1)})`,
    );
  }
  for (let run = 1; run <= runs; run++) {
    const cpu = process.cpuUsage();
    const t = performance.now();
    const outcome = await recomputeAccount(
      { pool, readModelSchema: DEFAULT_READ_MODEL_SCHEMA },
      accountId,
      asOf,
    );
    const wall = performance.now() - t;
    const used = process.cpuUsage(cpu);
    const scored = await recomputeDb(pool)
      .selectFrom('analytics.customer_scores')
      .select((eb) => eb.cast<number>(eb.fn.countAll(), 'integer').as('n'))
      .where('account_id', '=', accountId)
      .executeTakeFirst();
    console.log(
      JSON.stringify({
        run,
        customers: outcome.customers,
        orders: outcome.orders,
        repeat_customers: outcome.repeatCustomers,
        model: outcome.model,
        rows_written: scored?.n,
        ...('groups' in outcome ? { groups: outcome.groups } : {}),
        seconds: seconds(wall),
        us_per_order: Number(((wall * 1000) / Math.max(1, outcome.orders)).toFixed(2)),
        phases_seconds: {
          load: seconds(outcome.ms.load),
          score: seconds(outcome.ms.score),
          write: seconds(outcome.ms.write),
          // Refreshing the dashboards' cohort activity from the orders (docs/analytics.md, "Report aggregates").
          cohorts: seconds(outcome.ms.cohorts),
        },
        node_cpu_seconds: seconds((used.user + used.system) / 1000),
      }),
    );
  }
} finally {
  await pool.end();
  if (keep) console.error(`kept database ${name} (re-run: --reuse ${name})`);
  else await admin(base, `drop database "${name}"`);
}
