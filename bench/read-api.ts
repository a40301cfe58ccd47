// npm run bench -- read-api [--customers 1000000] [--profiles 2000] [--pages 40] [--page-size 5000]
// The /v1/ read routes (docs/read-api.md) on one account of --customers scored customers: a real
// gateway process on a scratch database. The profiles and scores are seeded straight in SQL
// (generate_series; the scores in the account's own partition of analytics.customer_scores, as the
// recompute swaps it in), then ANALYZEd. Times, from a single sequential client over loopback HTTP:
// GET /v1/customers/{external_id} for --profiles random ids, and --pages consecutive pages of
// GET /v1/customers?limit=--page-size (cursor walk). Prints medians and p99 with the load average.
import { loadavg } from 'node:os';
import type { Kysely } from 'kysely';
import { mintApiKey } from '@holdfast/db';
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

export async function benchReadApi(args: Record<string, string>): Promise<number> {
  const n = Number(args.customers ?? 1_000_000);
  const profiles = Number(args.profiles ?? 2000);
  const pages = Number(args.pages ?? 40);
  const pageSize = Number(args['page-size'] ?? 5000);
  const stack = await benchStack(1);
  try {
    await ensureReadModelSchema(stack.pool, DEFAULT_READ_MODEL_SCHEMA);
    await migrateAnalytics(stack.db as unknown as Kysely<unknown>);
    await migrateCampaigns(stack.db as unknown as Kysely<unknown>);
    const { accountId } = await stack.account();
    const { key } = await mintApiKey(stack.db, accountId, 'read_live');
    const loadBeforeSeed = load();
    const s0 = performance.now();
    await stack.pool.query(
      `insert into read_models.customers (account_id, customer_id, external_id, email, address_city, address_country,
         consent_marketing_email, created_at, updated_at)
       select $1, gen_random_uuid(), 'c' || i, 'c' || i || '@example.com', 'Austin', 'US', i % 3 = 0,
              now() - make_interval(days => i % 700), now() - make_interval(days => i % 30)
         from generate_series(1, $2) i`,
      [accountId, n],
    );
    await stack.pool.query(
      `create table analytics.bench_scores partition of analytics.customer_scores for values in ('${accountId}')`,
    );
    await stack.pool.query(
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
    await stack.pool.query('analyze read_models.customers; analyze analytics.customer_scores');
    const seedS = (performance.now() - s0) / 1000;
    console.error(`[read-api] seeded ${n} customers and scores in ${seedS.toFixed(1)} s`);

    const port = await stack.startService('gateway');
    const base = `http://127.0.0.1:${port}`;
    // Warm-up: the first requests pay for connections, plans and cold pages.
    for (let i = 0; i < 50; i++) await timed(`${base}/v1/customers/c${1 + ((i * 7919) % n)}`, key);

    const loadBefore = load();
    const profileMs: number[] = [];
    for (let i = 0; i < profiles; i++) {
      const id = 1 + Math.floor(Math.random() * n);
      const r = await timed(`${base}/v1/customers/c${id}`, key);
      if (r.status !== 200) throw new Error(`GET /v1/customers/c${id}: ${r.status}`);
      profileMs.push(r.ms);
    }
    const pageMs: number[] = [];
    let bytes = 0;
    let cursor: string | null = null;
    for (let i = 0; i < pages; i++) {
      const url = `${base}/v1/customers?limit=${pageSize}${cursor ? `&cursor=${cursor}` : ''}`;
      const t0 = performance.now();
      const r = await fetch(url, { headers: { authorization: `Bearer ${key}` } });
      const body = (await r.json()) as { customers: unknown[]; next_cursor: string | null };
      pageMs.push(performance.now() - t0);
      if (r.status !== 200 || body.customers.length !== pageSize) throw new Error(`page ${i}: ${r.status}`);
      bytes += JSON.stringify(body).length;
      cursor = body.next_cursor;
    }
    const loadAfter = load();
    const figures = {
      customers: n,
      seed_s: Math.round(seedS),
      profile_p50_ms: median(profileMs),
      profile_p99_ms: percentile(profileMs, 99),
      page_p50_ms: median(pageMs),
      page_p99_ms: percentile(pageMs, 99),
      page_size: pageSize,
      page_bytes: Math.round(bytes / pages),
      load_avg_1m_before_seed: loadBeforeSeed,
      load_avg_1m_before: loadBefore,
      load_avg_1m_after: loadAfter,
    };
    report('read-api', figures, [
      ['scored customers (one account)', n],
      [
        `GET /v1/customers/{id} p50 / p99 (ms, ${profiles} calls)`,
        `${figures.profile_p50_ms.toFixed(1)} / ${figures.profile_p99_ms.toFixed(1)}`,
      ],
      [
        `GET /v1/customers?limit=${pageSize} p50 / p99 (ms, ${pages} pages)`,
        `${figures.page_p50_ms.toFixed(0)} / ${figures.page_p99_ms.toFixed(0)}`,
      ],
      ['bytes per page', figures.page_bytes],
      ['load avg 1m before / after (2 cores)', `${loadBefore} / ${loadAfter}`],
    ]);
    return figures.profile_p99_ms < 20 && figures.page_p99_ms < 300 ? 0 : 1;
  } finally {
    await stack.close();
  }
}
