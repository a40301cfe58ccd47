// npm run bench -- recompute --customers N [--orders-per-customer K] [--runs 3] [--keep] [--reuse DB]
//   [--checkout DIR]: seconds to fit and score N customers (K: the replenishment shape, K orders each
// about weekly, e.g. 15114 × 80). The measurement is bench/recompute-bench.ts
// (a script: it loads N customers' orders by COPY into a throwaway database, then times one recompute
// of the account); this runs it as a child process per run, samples its RSS and reports the median.
// --keep keeps the loaded database, --reuse DB recomputes a kept one without loading (every run then
// measures the same data), --checkout DIR runs the script of another checkout of the repository (a
// `git worktree` of an older commit, with its own node_modules) against that same data: the old path
// and the new side by side.
import { spawn } from 'node:child_process';
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { loadSettings } from '../infra/lib/settings.mjs';
import { up } from '../infra/lib/stack.mjs';
import { report } from './report.js';
import { repeat } from './runs.js';
import { rssMb } from './rss.js';

/**
 * The --max-old-space-size the recompute service of a checkout runs with (its
 * services/recompute/package.json `start`, the same as its deploy/), or null where it ran with
 * V8's default (checkouts before the heap was sized).
 */
function serviceHeapMb(checkout: string): number | null {
  try {
    const pkg = readFileSync(join(checkout, 'services/recompute/package.json'), 'utf8');
    const m = /--max-old-space-size=(\d+)/.exec(pkg);
    return m ? Number(m[1]) : null;
  } catch {
    return null;
  }
}

interface RecomputeRun {
  readonly seconds: number;
  readonly us_per_order: number;
  readonly customers: number;
  readonly orders: number;
  readonly model: string;
  readonly phases_seconds: Record<string, number>;
  /** The recompute process's own CPU time: what the machine's load does not inflate. */
  readonly node_cpu_seconds: number;
  readonly peak_rss_mb: number;
  /** Distinct (x, t_x, T) and (x, m_x) groups of the fit (the streamed path reports them). */
  readonly groups?: { readonly rfm: number; readonly spend: number };
}

function runOnce(
  customers: number,
  perCustomer: string | undefined,
  env: Record<string, string>,
  extra: readonly string[],
  cwd: string | undefined,
): Promise<RecomputeRun> {
  const heapMb = serviceHeapMb(cwd ?? process.cwd());
  return new Promise((resolve, reject) => {
    const child = spawn(
      process.execPath,
      [
        // As the service runs (deploy/: kubernetes, systemd): its V8 heap sized as that checkout's
        // service sized it (side by side, each path gets its own deploy's heap).
        ...(heapMb === null ? [] : [`--max-old-space-size=${heapMb}`]),
        '--conditions=source',
        '--import',
        'tsx',
        'bench/recompute-bench.ts',
        String(customers),
        ...(perCustomer === undefined ? [] : ['--orders-per-customer', perCustomer]),
        ...extra,
      ],
      { env: { ...process.env, ...env }, stdio: ['ignore', 'pipe', 'inherit'], cwd },
    );
    let out = '';
    let peak = 0;
    const timer = setInterval(() => (peak = Math.max(peak, rssMb(child.pid ?? 0))), 250);
    child.stdout.on('data', (c: Buffer) => (out += c.toString()));
    child.once('error', reject);
    child.once('exit', (code) => {
      clearInterval(timer);
      const line = out.trim().split('\n').at(-1) ?? '';
      if (code !== 0) return reject(new Error(`recompute bench exited ${code}: ${line}`));
      resolve({ ...(JSON.parse(line) as Omit<RecomputeRun, 'peak_rss_mb'>), peak_rss_mb: Math.round(peak) });
    });
  });
}

export async function benchRecompute(args: Record<string, string>): Promise<void> {
  const customers = Number(args.customers ?? 1_000_000);
  const runs = Number(args.runs ?? 3);
  const perCustomer = args['orders-per-customer'];
  const extra = [
    ...(args.reuse ? ['--reuse', args.reuse] : []),
    ...(args.keep !== undefined ? ['--keep'] : []),
  ];
  const stack = await up(loadSettings(), (m) => console.error(`[infra] ${m}`));
  const {
    median,
    medianRun: r,
    figures,
    loads,
  } = await repeat(
    'recompute',
    runs,
    () => runOnce(customers, perCustomer, { DATABASE_URL: stack.DATABASE_URL }, extra, args.checkout),
    (x) => x.seconds,
  );
  report(
    'recompute',
    {
      customers: r.customers,
      orders: r.orders,
      model: r.model,
      runs,
      seconds: median,
      us_per_order: r.us_per_order,
      orders_per_customer: perCustomer ?? 'cdnow',
      checkout: args.checkout ?? 'this one',
      ...(r.groups ? { groups: { rfm: r.groups.rfm, spend: r.groups.spend } } : {}),
      phases_seconds: r.phases_seconds,
      node_cpu_seconds: r.node_cpu_seconds,
      node_cpu_us_per_customer: cpuPerCustomer(r),
      all_seconds: figures.join(' '),
      loads: loads.join(' '),
      peak_rss_mb: { recompute: Math.max(...[r.peak_rss_mb]) },
    },
    [
      ['customers / orders', `${r.customers} / ${r.orders}`],
      ['seconds to fit and score (median)', `${median} (target < 60 s for 1,000,000)`],
      ['µs per order (median run)', r.us_per_order],
      ['phases (s)', JSON.stringify(r.phases_seconds)],
      ['recompute process CPU s (median run)', r.node_cpu_seconds],
      ['recompute process CPU µs per customer', cpuPerCustomer(r)],
      ['runs: seconds / load averages', `${figures.join(' ')} / ${loads.join(' ')}`],
      ['peak RSS MiB (recompute process)', r.peak_rss_mb],
      ['fit groups (x,t_x,T) / (x,m_x)', r.groups ? `${r.groups.rfm} / ${r.groups.spend}` : 'n/a'],
    ],
  );
}

/** CPU µs per customer: the figure that should stay flat as the account grows (linear time). */
function cpuPerCustomer(r: RecomputeRun): number {
  return Math.round((r.node_cpu_seconds * 1e6) / Math.max(1, r.customers));
}
