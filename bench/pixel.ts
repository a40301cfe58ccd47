// npm run bench -- pixel --events N [--clients 16] [--runs 3] [--producer-pool N]
// [--pixel-producer-pool N]: events/s accepted by /pixel/collect in 50-event batches from several
// concurrent clients, counted in read_models.pixel_events at the end.
// The collector's limits are contract (600 requests/min per IP, 6,000 per key): the bench spreads its
// clients over one pixel key each and over client IPs (X-Forwarded-For behind TRUST_PROXY=loopback, as a
// load balancer would send it), so it measures throughput, not the limiter's refusals.
import { randomUUID } from 'node:crypto';
import { createAccount, createPixelKey } from '@holdfast/db';
import { report } from './report.js';
import { repeat } from './runs.js';
import { RssSampler } from './rss.js';
import { benchStack, type BenchStack } from './stack.js';

const ORIGIN = 'https://shop.example.com';
const PER_REQUEST = 50;

function body(key: string, now: number): string {
  const events = Array.from({ length: PER_REQUEST }, (_, i) => ({
    event_id: randomUUID(),
    event_type: i % 5 === 0 ? 'product_view' : 'page_view',
    occurred_at: new Date(now - i * 1000).toISOString(),
    anonymous_id: `anon-${i % 17}`,
    session_id: `sess-${i % 7}`,
    url_path: `/products/p-${i}`,
    consent_state: 'granted',
  }));
  return JSON.stringify({ key, events });
}

async function once(stack: BenchStack, url: string, n: number, clients: number) {
  const { id: accountId } = await createAccount(stack.db, { name: 'pixel-bench' });
  const keys = await Promise.all(
    Array.from({ length: clients }, () => createPixelKey(stack.db, accountId, [ORIGIN])),
  );
  const requests = Math.ceil(n / PER_REQUEST);
  let next = 0;
  let refused = 0;
  const t0 = performance.now();
  await Promise.all(
    keys.map(async ({ key }) => {
      for (let i = next++; i < requests; i = next++) {
        const r = await fetch(`${url}/pixel/collect`, {
          method: 'POST',
          headers: {
            'content-type': 'application/json',
            origin: ORIGIN,
            'x-forwarded-for': `198.51.${(i >> 8) & 255}.${i & 255}`,
          },
          body: body(key, Date.now()),
        });
        await r.arrayBuffer();
        if (r.status !== 204) refused++;
      }
    }),
  );
  const sentAt = performance.now();
  let stored = 0;
  for (;;) {
    const { rows } = await stack.pool.query<{ n: number }>(
      'select count(*)::int as n from read_models.pixel_events where account_id = $1',
      [accountId],
    );
    stored = rows[0]!.n;
    if (stored >= requests * PER_REQUEST || performance.now() - sentAt > 120_000) break;
    await new Promise((r) => setTimeout(r, 200));
  }
  const seconds = (performance.now() - t0) / 1000;
  return {
    sent: requests * PER_REQUEST,
    stored,
    refused,
    eventsPerS: Math.round(stored / seconds),
    acceptPerS: Math.round((requests * PER_REQUEST) / ((sentAt - t0) / 1000)),
    seconds,
  };
}

export async function benchPixel(args: Record<string, string>): Promise<void> {
  const n = Number(args.events ?? 100_000);
  const runs = Number(args.runs ?? 3);
  const clients = Number(args.clients ?? 16);
  const stack = await benchStack(Number(args.partitions ?? 4));
  try {
    await stack.startService('projector');
    const pool: Record<string, string> = {
      ...(args['producer-pool'] ? { PRODUCER_POOL_SIZE: args['producer-pool'] } : {}),
      ...(args['pixel-producer-pool'] ? { PIXEL_PRODUCER_POOL_SIZE: args['pixel-producer-pool'] } : {}),
    };
    const port = await stack.startService(
      'gateway',
      { TRUST_PROXY: 'loopback', ...pool },
      args.profile ? ['--cpu-prof', `--cpu-prof-dir=${args.profile}`] : [],
    );
    const sampler = new RssSampler(stack.pids()).start();
    const {
      median,
      medianRun: r,
      figures,
      loads,
    } = await repeat(
      'pixel',
      runs,
      () => once(stack, `http://127.0.0.1:${port}`, n, clients),
      (x) => x.eventsPerS,
    );
    report(
      'pixel',
      {
        events: r.sent,
        clients,
        runs,
        events_per_s: median,
        accept_events_per_s: r.acceptPerS,
        stored: r.stored,
        refused_requests: r.refused,
        rates: figures.join(' '),
        loads: loads.join(' '),
        peak_rss_mb: sampler.stop(),
      },
      [
        ['events sent (50 per request)', r.sent],
        ['events/s stored in read_models.pixel_events (median)', `${median} (target ≥ 10,000)`],
        ['events/s answered 204 by the gateway', r.acceptPerS],
        ['stored / refused requests', `${r.stored} / ${r.refused}`],
        ['runs: events/s / load averages', `${figures.join(' ')} / ${loads.join(' ')}`],
      ],
    );
  } finally {
    await stack.close();
  }
}
