// npm run bench -- analyst-rls [--orders 1000000] [--accounts 100] [--runs 7]
//   [--database-url postgres://postgres@127.0.0.1:5432/postgres]: the price of the analysts' tenant
// boundary. In a scratch database, --orders orders spread over --accounts accounts; one analyst login
// granted one account. Times (median of --runs, warm cache) the same aggregate over read_models.orders
// as the analyst (the policy alone filters), as holdfast_operator with the account in the WHERE
// clause, as the operator over every account, and as the analyst under the policy shape not chosen
// (`account_id in (select …)`). Prints a markdown table and the plan's top nodes; drops everything.
import { randomBytes } from 'node:crypto';
import { loadavg } from 'node:os';
import pg from 'pg';
import type { Kysely } from 'kysely';
import { ANALYST_POLICY, createDb, createPool, migrateToLatest, SERVICE_ROLES } from '@holdfast/postgres';
import { grantAnalystAccount } from '@holdfast/control-plane';
import { DEFAULT_READ_MODEL_SCHEMA, ensureReadModelSchema } from '@holdfast/read-models';

const QUERY = 'select count(*) as n, sum(order_amount) as total from read_models.orders';

function urlFor(base: string, database: string, user?: string): string {
  const u = new URL(base);
  u.pathname = `/${database}`;
  if (user) {
    u.username = user;
    u.password = '';
  }
  return u.toString();
}

async function median(c: pg.Client, sql: string, values: unknown[], runs: number) {
  const times: number[] = [];
  let rows = 0;
  for (let i = 0; i < runs + 1; i++) {
    const started = performance.now();
    const r = await c.query<{ n: string }>(sql, values);
    if (i > 0) times.push(performance.now() - started); // the first run warms the cache
    rows = Number(r.rows[0]!.n);
  }
  times.sort((a, b) => a - b);
  return { ms: times[Math.floor(times.length / 2)]!, rows };
}

async function plan(c: pg.Client, sql: string, values: unknown[]): Promise<string> {
  const { rows } = await c.query<{ 'QUERY PLAN': string }>(`explain ${sql}`, values);
  return rows
    .map((r) => r['QUERY PLAN'])
    .map((l) =>
      l
        .trim()
        .replace(/^->\s+/, '')
        .replace(/\s+\(cost=.*\)$/, ''),
    )
    .filter((l) => / on orders|Cond: \(account_id|Filter: /.test(l))
    .join(' / ');
}

export async function benchAnalystRls(args: Record<string, string>): Promise<void> {
  const base =
    args['database-url'] ?? process.env.DATABASE_URL ?? 'postgres://postgres@127.0.0.1:5432/postgres';
  const orders = Number(args.orders ?? 1_000_000);
  const accounts = Number(args.accounts ?? 100);
  const runs = Number(args.runs ?? 7);
  const suffix = randomBytes(3).toString('hex');
  const database = `hf_bench_analyst_${suffix}`;
  const login = `hf_bench_${suffix}_analyst`;
  const admin = new pg.Client({ connectionString: urlFor(base, 'postgres') });
  await admin.connect();
  await admin.query(`create database "${database}"`);
  const pool = createPool(urlFor(base, database), 'bench-analyst-rls', 2, { statementTimeoutMs: 0 });
  const db = createDb(pool);
  const sessions: pg.Client[] = [];
  try {
    await migrateToLatest(db as Kysely<unknown>);
    await ensureReadModelSchema(pool, DEFAULT_READ_MODEL_SCHEMA);
    const { rows: ids } = await pool.query<{ id: string }>(
      `insert into control.accounts (id, name) select gen_random_uuid(), 'shop ' || i from generate_series(1, $1) i
       returning id`,
      [accounts],
    );
    const started = performance.now();
    await pool.query(
      `insert into read_models.orders (account_id, order_id, customer_id, order_date, order_amount, product_name,
                                       first_seen_at, updated_at)
       select ($1::uuid[])[1 + i % $2], 'o-' || i, gen_random_uuid(), now() - (i % 1000) * interval '1 hour',
              10 + i % 50, 'tea', now(), now()
         from generate_series(1, $3) i`,
      [ids.map((r) => r.id), accounts, orders],
    );
    await pool.query('analyze read_models.orders');
    console.log(
      `seeded ${orders} orders over ${accounts} accounts in ${((performance.now() - started) / 1000).toFixed(1)} s`,
    );
    const account = ids[0]!.id;
    await pool.query(`create role "${login}" login`);
    await grantAnalystAccount(db, login, account);

    const connect = async (user: string) => {
      const c = new pg.Client({ connectionString: urlFor(base, database, user) });
      await c.connect();
      sessions.push(c);
      return c;
    };
    const analyst = await connect(login);
    const operator = await connect(SERVICE_ROLES.operator);
    const cases: [string, pg.Client, string, unknown[]][] = [
      ['analyst, one grant (policy `= any(array(select …))`)', analyst, QUERY, []],
      ['operator, `where account_id = $1`', operator, `${QUERY} where account_id = $1`, [account]],
      ['operator, every account', operator, QUERY, []],
    ];
    console.log(`load ${loadavg()[0]!.toFixed(2)}; median of ${runs} runs after one warm-up`);
    console.log('| who | rows | ms | plan |\n|---|---:|---:|---|');
    for (const [name, c, sql, values] of cases) {
      const r = await median(c, sql, values, runs);
      console.log(`| ${name} | ${r.rows} | ${r.ms.toFixed(1)} | ${await plan(c, sql, values)} |`);
    }
    // The shape not chosen, on the same data: swapped in for this measure only.
    await pool.query(`begin;
      drop policy ${ANALYST_POLICY} on read_models.orders;
      create policy ${ANALYST_POLICY} on read_models.orders for select to ${SERVICE_ROLES.analyst}
        using (account_id in (select g.account_id from control.analyst_grants g where g.login = session_user));
      commit`);
    const r = await median(analyst, QUERY, [], runs);
    console.log(
      `| analyst, one grant (policy \`in (select …)\`, not chosen) | ${r.rows} | ${r.ms.toFixed(1)} | ${await plan(analyst, QUERY, [])} |`,
    );
  } finally {
    for (const c of sessions) await c.end().catch(() => {});
    await db.destroy();
    await admin.query(`drop database if exists "${database}" with (force)`);
    await admin.query(`drop role if exists "${login}"`);
    await admin.end();
  }
}
