// npm run bench -- pixel --events N [--clients 16] [--runs 3] [--producer-pool N]
// [--pixel-producer-pool N] [--sealing both]: events/s accepted by /pixel/collect in 50-event batches
// from several concurrent clients, counted in read_models.pixel_events at the end. Every event carries
// raw_props (and one in five a search and a page title): what the gateway seals (docs/privacy.md).
// `--sealing both`: each run is a pair, a fresh stack sealed and one in clear (HOLDFAST_UNSAFE_UNSEALED,
// test mode only), their order alternating; it reports both medians and the median of the pairs' ratios.
// The collector's limits are contract (600 requests/min per IP, 6,000 per key): the bench spreads its
// clients over one pixel key each and over client IPs (X-Forwarded-For behind TRUST_PROXY=loopback, as a
// load balancer would send it), so it measures throughput, not the limiter's refusals.
import { randomUUID } from 'node:crypto';
import { createAccount, createPixelKey } from '@holdfast/control-plane';
import { median, report } from './report.js';
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
    raw_props: { utm_source: 'newsletter', utm_content: `trk-${i % 13}`, variant: i % 2 ? 'a' : 'b' },
    ...(i % 5 === 0 ? { search: `green tea ${i}`, page_title: `Hello, visitor ${i % 17}` } : {}),
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

type Sealing = 'on' | 'off';

/** One run on a stack of its own, sealed or in clear. */
async function onceOnFreshStack(args: Record<string, string>, n: number, clients: number, sealing: Sealing) {
  const stack = await benchStack(Number(args.partitions ?? 4));
  try {
    const env: Record<string, string> =
      sealing === 'off' ? { HOLDFAST_TEST_MODE: '1', HOLDFAST_UNSAFE_UNSEALED: '1' } : {};
    await stack.startService('projector', env);
    const port = await stack.startService('gateway', { TRUST_PROXY: 'loopback', ...env });
    return await once(stack, `http://127.0.0.1:${port}`, n, clients);
  } finally {
    await stack.close();
  }
}

async function benchPixelSealing(args: Record<string, string>, n: number, runs: number, clients: number) {
  const pairs = await repeat(
    'pixel sealing on/off',
    runs,
    async (run) => {
      const order: Sealing[] = run % 2 ? ['off', 'on'] : ['on', 'off'];
      const out = {} as Record<Sealing, number>;
      for (const sealing of order) {
        const r = await onceOnFreshStack(args, n, clients, sealing);
        out[sealing] = r.eventsPerS;
        console.error(`  sealing ${sealing}: ${r.eventsPerS} events/s stored, ${r.acceptPerS} answered`);
      }
      return out;
    },
    (r) => r.on / r.off,
  );
  const on = median(pairs.results.map((r) => r.on));
  const off = median(pairs.results.map((r) => r.off));
  const list = pairs.results.map((r) => `${r.on}/${r.off}`).join(' ');
  report(
    'pixel-sealing',
    {
      events: n,
      clients,
      runs,
      sealed_events_per_s: on,
      clear_events_per_s: off,
      median_ratio: Math.round(pairs.median * 1000) / 1000,
      pairs: list,
      loads: pairs.loads.join(' '),
    },
    [
      ['median events/s, sealing on', on],
      ['median events/s, sealing off', off],
      ["median of the pairs' on/off ratios", pairs.median.toFixed(3)],
      ['pairs (on/off events/s) / load averages', `${list} / ${pairs.loads.join(' ')}`],
    ],
  );
}

export async function benchPixel(args: Record<string, string>): Promise<void> {
  const n = Number(args.events ?? 100_000);
  const runs = Number(args.runs ?? 3);
  const clients = Number(args.clients ?? 16);
  if (args.sealing === 'both') return benchPixelSealing(args, n, runs, clients);
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
