// npm run bench -- read-api [--customers 1000000] [--profiles 2000] [--pages 40] [--page-size 5000]
//                           [--baseline <git ref>] [--rounds 3]
// The /v1/ read routes (docs/read-api.md) on one account of --customers scored customers: a real
// gateway process on a scratch database. The profiles and scores are seeded straight in SQL
// (generate_series; the scores in the account's own partition of analytics.customer_scores, as the
// recompute swaps it in), then ANALYZEd. Times, from a single sequential client over loopback HTTP:
// GET /v1/customers/{external_id} for --profiles random ids, and --pages consecutive pages of
// GET /v1/customers?limit=--page-size (cursor walk). Prints medians and p99 with the load average.
// --baseline REF also starts REF's gateway (its services/gateway/src, extracted under bench-results/,
// with today's packages) on the same data, and the two are measured in --rounds interleaved rounds
// (order alternating), so a before/after comparison shares the seed, the caches and the load.
import { execFileSync } from 'node:child_process';
import { mkdirSync } from 'node:fs';
import { loadavg } from 'node:os';
import type { Kysely } from 'kysely';
import { createPool } from '@holdfast/postgres';
import { mintApiKey } from '@holdfast/control-plane';
import { DEFAULT_READ_MODEL_SCHEMA, ensureReadModelSchema } from '@holdfast/read-models';
import { migrateAnalytics, migrateCampaigns } from '@holdfast/migrations';
import { median, percentile, report } from './report.js';
import { benchStack } from './stack.js';

const load = (): number => Math.round(loadavg()[0]! * 100) / 100;

async function timed(url: string, key: string): Promise<{ ms: number; status: number; bytes: number }> {
  const t0 = performance.now();
  const r = await fetch(url, { headers: { authorization: `Bearer ${key}` } });
  const body = await r.arrayBuffer();
  return { ms: performance.now() - t0, status: r.status, bytes: body.byteLength };
}

/** `ref`'s gateway sources under bench-results/ (packages resolve to today's, through node_modules). */
function extractGateway(ref: string): string {
  const sha = execFileSync('git', ['rev-parse', '--short', ref], { encoding: 'utf8' }).trim();
  const dir = `bench-results/baseline-${sha}`;
  mkdirSync(dir, { recursive: true });
  execFileSync('sh', ['-c', `git archive ${sha} services/gateway/src | tar -x -C ${dir}`]);
  return `${dir}/services/gateway/src/main.ts`;
}

interface Target {
  readonly name: string;
  readonly base: string;
  readonly profileMs: number[];
  readonly pageMs: number[];
  bytes: number;
}

export async function benchReadApi(args: Record<string, string>): Promise<number> {
  const n = Number(args.customers ?? 1_000_000);
  const profiles = Number(args.profiles ?? 2000);
  const pages = Number(args.pages ?? 40);
  const pageSize = Number(args['page-size'] ?? 5000);
  const baseline = args.baseline ?? null;
  const rounds = Number(args.rounds ?? (baseline ? 3 : 1));
  const stack = await benchStack(1);
  // Seeding a million rows takes longer than the services' statement timeout.
  const seed = createPool(stack.env.DATABASE_URL!, 'bench-read-api-seed', 1, { statementTimeoutMs: 0 });
  try {
    await ensureReadModelSchema(stack.pool, DEFAULT_READ_MODEL_SCHEMA);
    await migrateAnalytics(stack.db as unknown as Kysely<unknown>);
    await migrateCampaigns(stack.db as unknown as Kysely<unknown>);
    const { accountId } = await stack.account();
    // One read key per 1,000 requests: each key's 1,200 reads a minute would refuse a fast run, and
    // the limiter's round trip stays in every request (HOLDFAST_UNSAFE_LIFT_LIMITS would skip it).
    const keys: string[] = [];
    const totalRequests = (baseline ? 2 : 1) * (50 + rounds * (profiles + pages));
    for (let i = 0; i < Math.ceil(totalRequests / 1000); i++)
      keys.push((await mintApiKey(stack.db, accountId, 'read_live')).key);
    let requests = 0;
    const nextKey = () => keys[Math.floor(requests++ / 1000)]!;
    const loadBeforeSeed = load();
    const s0 = performance.now();
    await seed.query(
      `insert into read_models.customers (account_id, customer_id, external_id, email, address_city, address_country,
         consent_marketing_email, created_at, updated_at)
       select $1, gen_random_uuid(), 'c' || i, 'c' || i || '@example.com', 'Austin', 'US', i % 3 = 0,
              now() - make_interval(days => i % 700), now() - make_interval(days => i % 30)
         from generate_series(1, $2) i`,
      [accountId, n],
    );
    await seed.query(
      `create table analytics.bench_scores partition of analytics.customer_scores for values in ('${accountId}')`,
    );
    await seed.query(
      `insert into analytics.customer_scores (account_id, customer_id, external_id, churn_risk, lifecycle_state, p_alive,
         predicted_next_purchase_at, expected_purchases, expected_spend, realised_revenue, predicted_value,
         lifetime_value, is_holdout, model, model_params, horizon_days, as_of)
       select account_id, customer_id, external_id, r, (array['Stable','Slowing','Overdue','Lapsed'])[1 + floor(r * 4)::int],
              1 - r, now() + make_interval(days => (r * 90)::int), 2 * (1 - r), 80, 120, 60, 180 * (1 - r),
              random() < 0.05, 'bgnbd-gg', '{"time_unit":"weeks"}', 365, now()
         from (select account_id, customer_id, external_id, random() as r
                 from read_models.customers where account_id = $1) c`,
      [accountId],
    );
    // As autovacuum leaves a table that has settled (visibility map set, statistics fresh).
    await seed.query('vacuum analyze read_models.customers');
    await seed.query('vacuum analyze analytics.customer_scores');
    const seedS = (performance.now() - s0) / 1000;
    console.error(`[read-api] seeded ${n} customers and scores in ${seedS.toFixed(1)} s`);

    const targets: Target[] = [];
    const add = async (name: string, entry?: string) => {
      const port = await stack.startService('gateway', {}, [], entry);
      targets.push({ name, base: `http://127.0.0.1:${port}`, profileMs: [], pageMs: [], bytes: 0 });
    };
    if (baseline) await add(`baseline ${baseline}`, extractGateway(baseline));
    await add('this tree');
    // Warm-up: the first requests pay for connections, plans and cold pages.
    for (const t of targets)
      for (let i = 0; i < 50; i++) await timed(`${t.base}/v1/customers/c${1 + ((i * 7919) % n)}`, nextKey());

    const measure = async (t: Target) => {
      for (let i = 0; i < profiles; i++) {
        const id = 1 + Math.floor(Math.random() * n);
        const r = await timed(`${t.base}/v1/customers/c${id}`, nextKey());
        if (r.status !== 200) throw new Error(`${t.name}: GET /v1/customers/c${id}: ${r.status}`);
        t.profileMs.push(r.ms);
      }
      let cursor: string | null = null;
      for (let i = 0; i < pages; i++) {
        const url = `${t.base}/v1/customers?limit=${pageSize}${cursor ? `&cursor=${cursor}` : ''}`;
        const t0 = performance.now();
        const r = await fetch(url, { headers: { authorization: `Bearer ${nextKey()}` } });
        const text = await r.text();
        const body = JSON.parse(text) as { customers: unknown[]; next_cursor: string | null };
        t.pageMs.push(performance.now() - t0);
        if (r.status !== 200 || body.customers.length !== pageSize)
          throw new Error(`${t.name}: page ${i}: ${r.status}`);
        t.bytes += text.length;
        cursor = body.next_cursor;
      }
    };
    const loadBefore = load();
    for (let round = 0; round < rounds; round++) {
      const order = round % 2 === 0 ? targets : [...targets].reverse();
      for (const t of order) await measure(t);
      console.error(`[read-api] round ${round + 1}/${rounds} done, load ${load()}`);
    }
    const loadAfter = load();
    const figuresOf = (t: Target) => ({
      profile_p50_ms: median(t.profileMs),
      profile_p99_ms: percentile(t.profileMs, 99),
      page_p50_ms: median(t.pageMs),
      page_p99_ms: percentile(t.pageMs, 99),
      page_bytes: Math.round(t.bytes / t.pageMs.length),
    });
    const current = figuresOf(targets[targets.length - 1]!);
    const before = baseline ? figuresOf(targets[0]!) : null;
    const figures = {
      customers: n,
      seed_s: Math.round(seedS),
      ...current,
      page_size: pageSize,
      rounds,
      ...(before && baseline
        ? {
            baseline,
            baseline_profile_p50_ms: before.profile_p50_ms,
            baseline_profile_p99_ms: before.profile_p99_ms,
            baseline_page_p50_ms: before.page_p50_ms,
            baseline_page_p99_ms: before.page_p99_ms,
            profile_p99_ratio: current.profile_p99_ms / before.profile_p99_ms,
            page_p99_ratio: current.page_p99_ms / before.page_p99_ms,
          }
        : {}),
      load_avg_1m_before_seed: loadBeforeSeed,
      load_avg_1m_before: loadBefore,
      load_avg_1m_after: loadAfter,
    };
    const rows: [string, string | number][] = [['scored customers (one account)', n]];
    for (const t of targets) {
      const f = figuresOf(t);
      rows.push(
        [
          `${t.name}: GET /v1/customers/{id} p50 / p99 (ms, ${t.profileMs.length} calls)`,
          `${f.profile_p50_ms.toFixed(1)} / ${f.profile_p99_ms.toFixed(1)}`,
        ],
        [
          `${t.name}: GET /v1/customers?limit=${pageSize} p50 / p99 (ms, ${t.pageMs.length} pages)`,
          `${f.page_p50_ms.toFixed(0)} / ${f.page_p99_ms.toFixed(0)}`,
        ],
        [`${t.name}: bytes per page`, f.page_bytes],
      );
    }
    rows.push(['load avg 1m before / after (2 cores)', `${loadBefore} / ${loadAfter}`]);
    report('read-api', figures, rows);
    return figures.profile_p99_ms < 20 && figures.page_p99_ms < 300 ? 0 : 1;
  } finally {
    await seed.end();
    await stack.close();
  }
}
