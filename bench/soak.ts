// npm run bench -- soak [--minutes 10] [--orders-per-s N] [--accounts 2] [--port-base P]
// [--projector-orders-budget N] [--projector-customers-budget N]: a steady mixed load (the chaos
// benchmark's four client streams per account, no faults) against the four services on a private
// stack. Reports failed requests (429s honoured with Retry-After are not failures), the RSS of every
// Node process sampled every 5 s, and p99 latency per route per minute. Exit code 1 when a request
// failed or a service's RSS grew 10 % or more over the steady half of the run.
//
// Memory verdict: caches that fill up to a budget grow by design until they are full, so growth is
// judged only in the steady state: over the second half of the run (mean of its first 30 s against
// the mean of the last 30 s), with the projector's identity memory budget lowered (default 150,000
// orders, 30,000 customers) so that it is full before that half starts; the RSS slope over that half
// (MiB per minute) is reported beside it. Growth from minute 2 to the end is reported, not gated.
// Beside the RSS, the live JS heap is gated from minute 2: every service runs with --trace-gc and the
// heap size after each full collection (what is still reachable) is read back from its log; it must
// grow less than 10 % from the first quarter after minute 2 to the last quarter. That is the leak
// test the RSS cannot be: a 22-minute run at 6,900 orders/s showed the gateway's RSS rising from
// 478 to 580 MiB by minute 10 and then flat, while its heap after full GC stayed at 54-55 MiB and
// two heap snapshots 17 minutes apart differed by 0.9 MiB (docs/reliability.md).
// `--trace-gc false` turns it off; `--heap-snapshots 3,20` makes the gateway write heap snapshots.
//
// Default rate: half the measured capacity. docs/performance.md measured the backfill at 13,879
// orders/s end to end on a quiet 2-core machine (6,871 under the load of other suites); half of the
// quiet figure, ~6,900 orders/s, is the default (`--orders-per-s` to change it), plus per account 300
// customer rows/s, 4 custom-api events/s and 4 pixel requests of 20 events/s.
import { mkdtempSync, readFileSync, writeFileSync } from 'node:fs';
import { loadavg, tmpdir } from 'node:os';
import { join } from 'node:path';
import pg from 'pg';
import type { Kysely } from 'kysely';
import { connectTile, createAccount, createPixelKey, mintApiKey } from '@holdfast/control-plane';
import { createDb, migrateToLatest } from '@holdfast/postgres';
import { createKafka, ensureTopics } from '@holdfast/kafka';
import { silentLogger } from '@holdfast/platform';
import { MixedLoad, RetryingClient } from './chaos-load.js';
import { PrivateStack, ServiceSupervisor, type ServiceName } from './faults.js';
import { percentile, report } from './report.js';
import { rssMb } from './rss.js';

const sleep = (ms: number) => new Promise((r) => setTimeout(r, ms));
const ORIGIN = 'https://shop.example.com';
// The projector first: its start creates the read models the gateway's readiness waits for.
const SERVICES: ServiceName[] = ['projector', 'gateway', 'recompute', 'dispatcher'];
export const DEFAULT_SOAK_ORDERS_PER_S = 6_900;
/** RSS may grow less than this over the steady (second) half of the run. */
const RSS_GROWTH_LIMIT = 0.1;
/** The projector's identity memory budget during a soak: full well before the steady half. */
const SOAK_BUDGET = { orders: 150_000, customers: 30_000 };

export async function benchSoak(args: Record<string, string>): Promise<number> {
  const minutes = Number(args.minutes ?? 10);
  const accounts = Number(args.accounts ?? 2);
  const ordersPerS = Number(args['orders-per-s'] ?? DEFAULT_SOAK_ORDERS_PER_S);
  const log = (m: string) => console.error(`[soak] ${m}`);
  const load0 = loadavg()[0]!;
  const stack = await PrivateStack.start(
    (m) => log(`[infra] ${m}`),
    args['port-base'] ? Number(args['port-base']) : undefined,
  );
  const logDir = mkdtempSync(join(tmpdir(), 'holdfast-soak-logs-'));
  // --trace-gc: every service prints its garbage collections; the live heap after each full
  // (mark-compact) collection is read back from the logs. --heap-snapshots 3,18: the gateway writes a
  // heap snapshot into the log directory at those minutes (each pauses it for seconds: not for a
  // verdict run).
  const traceGc = args['trace-gc'] !== 'false';
  const snapshotsAt = (args['heap-snapshots'] ?? '').split(',').filter(Boolean).map(Number);
  const nodeArgs = (svc: ServiceName) => [
    ...(traceGc ? ['--trace-gc'] : []),
    ...(svc === 'gateway' && snapshotsAt.length
      ? ['--heapsnapshot-signal=SIGUSR2', `--diagnostic-dir=${logDir}`]
      : []),
  ];
  const pool = new pg.Pool({ connectionString: stack.env.DATABASE_URL, max: 2 });
  pool.on('error', () => {});
  const sup = new ServiceSupervisor(
    {
      ...stack.env,
      HOLDFAST_TOPIC_PREFIX: 'soak-',
      HOLDFAST_PARTITIONS: '4',
      LOG_LEVEL: 'warn',
      HOLDFAST_PROJECTOR_MEMORY_ORDERS: args['projector-orders-budget'] ?? String(SOAK_BUDGET.orders),
      HOLDFAST_PROJECTOR_MEMORY_CUSTOMERS:
        args['projector-customers-budget'] ?? String(SOAK_BUDGET.customers),
    },
    logDir,
  );
  const loads: MixedLoad[] = [];
  const clients: RetryingClient[] = [];
  try {
    const db = createDb(pool);
    await migrateToLatest(db as Kysely<unknown>);
    const kafka = createKafka(stack.env.KAFKA_BROKERS.split(','), 'soak', silentLogger);
    const admin = kafka.admin();
    await admin.connect();
    await ensureTopics(admin, 'soak-', 4);
    await admin.disconnect();
    const spawnedAt: Partial<Record<ServiceName, number>> = {};
    for (const svc of SERVICES) {
      spawnedAt[svc] = Date.now();
      await sup.start(svc, {}, svc, nodeArgs(svc));
    }
    const base = `http://127.0.0.1:${sup.port('gateway')}`;
    for (let a = 0; a < accounts; a++) {
      const { id: accountId } = await createAccount(db, {
        name: `soak-${a}`,
        storefrontDomain: 'shop.example.com',
      });
      const key = async () => (await mintApiKey(db, accountId, 'ingest_live')).key;
      const creds = {
        accountId,
        ordersKey: await key(),
        customersKey: await key(),
        webhookKey: await key(),
        pixelKey: (await createPixelKey(db, accountId, [ORIGIN])).key,
        origin: ORIGIN,
      };
      await connectTile(db, accountId, 'custom_integration');
      const client = new RetryingClient(base);
      clients.push(client);
      loads.push(
        new MixedLoad(
          client,
          creds,
          {
            ordersPerSecond: ordersPerS / accounts,
            ordersPerBatch: 5000,
            customersA: 20_000,
            customersB: 2_000,
            customersO: 50_000,
            customersPerBatch: 300,
            customerBatchesPerSecond: 1,
            webhooksPerSecond: 4,
            pixelRequestsPerSecond: 4,
            pixelEventsPerRequest: 20,
            window: 20_000,
          },
          () => 0,
        ),
      );
    }
    const t0 = Date.now();
    const rss: { at: number; mb: Record<string, number> }[] = [];
    // The V8 heap of each service as its /metrics reports it (prom-client's default metrics).
    const heap: { at: number; svc: ServiceName; used: number; oldSpace: number; external: number }[] = [];
    const sample = () => {
      const at = Date.now() - t0;
      const mb: Record<string, number> = { bench: rssMb(process.pid) };
      for (const svc of SERVICES) {
        const pid = sup.pid(svc);
        if (pid) mb[svc] = rssMb(pid);
        void heapOf(sup.opsPort(svc)).then((h) => h && heap.push({ at, svc, ...h }));
      }
      rss.push({ at, mb });
    };
    const timer = setInterval(sample, 5000);
    sample();
    const snapshotTimers = snapshotsAt.map((m) =>
      setTimeout(() => {
        const pid = sup.pid('gateway');
        if (pid) process.kill(pid, 'SIGUSR2');
        log(`gateway heap snapshot asked at minute ${m}`);
      }, m * 60_000),
    );
    for (const l of loads) l.start();
    const loadSamples: number[] = [];
    while (Date.now() - t0 < minutes * 60_000) {
      await sleep(10_000);
      loadSamples.push(loadavg()[0]!);
      const done = Math.round((Date.now() - t0) / 1000);
      const ok = clients.reduce((s, c) => s + [...c.stats.values()].reduce((t, r) => t + r.ok, 0), 0);
      log(`${done} s: ${ok} requests answered 2xx; load ${loadavg()[0]!.toFixed(2)}`);
    }
    await Promise.all(loads.map((l) => l.stop()));
    clearInterval(timer);
    for (const t of snapshotTimers) clearTimeout(t);
    sample();
    await sleep(1000);

    // Failed requests, and p99 per route per minute.
    const routes = new Map<
      string,
      {
        ok: number;
        throttled: number;
        failed: number;
        gaveUp: number;
        rejected: number;
        perMinute: number[][];
        lastRejection?: string;
      }
    >();
    for (const c of clients)
      for (const [route, s] of c.stats) {
        const r = routes.get(route) ?? {
          ok: 0,
          throttled: 0,
          failed: 0,
          gaveUp: 0,
          rejected: 0,
          perMinute: [],
        };
        r.ok += s.ok;
        r.throttled += s.throttled;
        r.failed += s.failedAttempts;
        r.gaveUp += s.gaveUp;
        r.rejected += s.rejected;
        if (s.lastRejection) r.lastRejection = s.lastRejection;
        for (const l of s.latencies) {
          const m = Math.floor((l.at - t0) / 60_000);
          (r.perMinute[m] ??= []).push(l.ms);
        }
        routes.set(route, r);
      }
    // RSS: minute 2 → end (reported), and the steady half (gated): the mean of its first 30 s against
    // the mean of the last 30 s, with the least-squares slope over the half.
    const mean = (xs: number[]) => (xs.length ? xs.reduce((a, b) => a + b, 0) / xs.length : 0);
    const end = rss[rss.length - 1]!.at;
    const half = end / 2;
    const meanIn = (name: string, from: number, to: number) =>
      mean(rss.filter((s) => s.at >= from && s.at < to).map((s) => s.mb[name] ?? 0));
    const growth: Record<
      string,
      { at2min: number; end: number; growth: number; atHalf: number; steady: number; slope: number }
    > = {};
    for (const name of ['bench', ...SERVICES]) {
      const at2 = meanIn(name, 120_000, 150_000);
      const atHalf = meanIn(name, half, half + 30_000);
      const last = meanIn(name, end - 30_000, end + 1);
      growth[name] = {
        at2min: Math.round(at2),
        end: Math.round(last),
        growth: at2 ? (last - at2) / at2 : 0,
        atHalf: Math.round(atHalf),
        steady: atHalf ? (last - atHalf) / atHalf : 0,
        slope: slopePerMinute(rss.filter((s) => s.at >= half).map((s) => [s.at, s.mb[name] ?? 0])),
      };
    }
    // Live heap: the V8 heap right after each full (mark-compact) collection, which keeps only what is
    // reachable, so it grows with a leak of JS objects and not with allocator or heap-reservation
    // high-water marks. Mean over the first quarter after minute 2 against the mean over the last
    // quarter; a service with fewer than 2 full collections in either quarter did not need them (its
    // old space did not fill) and is reported as not measured.
    const gc: Partial<Record<ServiceName, { atMs: number; after: number }[]>> = traceGc
      ? Object.fromEntries(SERVICES.map((svc) => [svc, markCompacts(join(logDir, `${svc}.log`))]))
      : {};
    const liveHeap: Partial<Record<ServiceName, LiveHeapGrowth>> = {};
    for (const svc of SERVICES) {
      // --trace-gc prints the process's uptime; the process started when it was spawned.
      const h = liveHeapGrowth(gc[svc] ?? [], t0 - spawnedAt[svc]!, end);
      if (h) liveHeap[svc] = h;
    }
    const failed = [...routes.values()].reduce((s, r) => s + r.failed + r.gaveUp + r.rejected, 0);
    const rssOk = SERVICES.every((s) => growth[s]!.steady < RSS_GROWTH_LIMIT);
    const heapOk = SERVICES.every((s) => (liveHeap[s]?.growth ?? 0) < RSS_GROWTH_LIMIT);
    const exits = sup.exits.filter((e) => !e.planned);
    const ok = failed === 0 && rssOk && heapOk && exits.length === 0 && minutes >= 3;

    const table: [string, string | number][] = [
      ['minutes / accounts / orders per s (target)', `${minutes} / ${accounts} / ${ordersPerS}`],
      [
        'load average (start, mean, max)',
        `${load0.toFixed(2)}, ${mean(loadSamples).toFixed(2)}, ${Math.max(...loadSamples).toFixed(2)}`,
      ],
    ];
    for (const [route, r] of routes) {
      table.push([
        route,
        `${r.ok} ok, ${r.throttled} × 429 (honoured), ${r.failed} failed attempts, ${r.gaveUp} given up, ${r.rejected} rejected${r.lastRejection ? ` (${r.lastRejection.slice(0, 200)})` : ''}`,
      ]);
      table.push([
        `  p99 ms per minute`,
        r.perMinute.map((xs) => (xs?.length ? Math.round(percentile(xs, 99)) : '-')).join(' '),
      ]);
    }
    // The V8 heap beside the RSS: the heap used (its minimum over a window is close to the live heap,
    // since the samples land between collections at random), old space and external memory.
    const heapRow = (svc: ServiceName, k: 'used' | 'oldSpace' | 'external', from: number, to: number) => {
      const xs = heap.filter((h) => h.svc === svc && h.at >= from && h.at < to).map((h) => h[k]);
      return xs.length ? Math.round(Math.min(...xs)) : '-';
    };
    for (const svc of SERVICES) {
      const windows: [number, number][] = [
        [120_000, 180_000],
        [half, half + 60_000],
        [end - 60_000, end + 1],
      ];
      table.push([
        `heap ${svc} MiB, min over the minute (2 min → half → end)`,
        (['used', 'oldSpace', 'external'] as const)
          .map((k) => `${k} ${windows.map(([a, b]) => heapRow(svc, k, a, b)).join(' → ')}`)
          .join('; '),
      ]);
      const h = liveHeap[svc];
      table.push([
        `  live heap after full GC (from 2 min, gated < 10 %)`,
        h
          ? `${h.from.toFixed(1)} → ${h.to.toFixed(1)} MiB, ${(h.growth * 100).toFixed(1)} % (${h.n} full collections)`
          : traceGc
            ? `not measured (${gc[svc]?.length ?? 0} full collections: fewer than 2 in a quarter)`
            : 'not measured (--trace-gc false)',
      ]);
    }
    writeFileSync(join(logDir, 'memory.json'), JSON.stringify({ t0, rss, heap, gc }));
    for (const [name, g] of Object.entries(growth))
      table.push([
        `RSS ${name} MiB (2 min → half → end)`,
        `${g.at2min} → ${g.atHalf} → ${g.end}; steady half ${(g.steady * 100).toFixed(1)} %, ` +
          `${g.slope.toFixed(2)} MiB/min (from 2 min ${(g.growth * 100).toFixed(1)} %, not gated)` +
          (name === 'bench' ? ' (the load client, not gated)' : ''),
      ]);
    table.push([
      'unplanned service exits',
      exits.length ? exits.map((e) => `${e.service}: ${e.reason}`).join(' | ') : 0,
    ]);
    table.push(['service logs', logDir]);
    table.push([
      'RESULT',
      ok
        ? 'ok: no failed request, RSS growth < 10 % over the steady half, live heap growth < 10 % from 2 min, no exit'
        : `FAILED (failed requests ${failed}, RSS ok ${rssOk}, live heap ok ${heapOk}, exits ${exits.length}${minutes < 3 ? ', under 3 minutes' : ''})`,
    ]);
    report(
      'soak',
      {
        minutes,
        orders_per_s_target: ordersPerS,
        failed_requests: failed,
        rss_growth_pct: Object.fromEntries(
          Object.entries(growth).map(([k, g]) => [k, Math.round(g.growth * 1000) / 10]),
        ),
        rss_steady_half_growth_pct: Object.fromEntries(
          Object.entries(growth).map(([k, g]) => [k, Math.round(g.steady * 1000) / 10]),
        ),
        live_heap_growth_pct: Object.fromEntries(
          Object.entries(liveHeap).map(([k, h]) => [k, Math.round(h.growth * 1000) / 10]),
        ),
        rss_steady_slope_mib_per_min: Object.fromEntries(
          Object.entries(growth).map(([k, g]) => [k, Math.round(g.slope * 100) / 100]),
        ),
        load_avg_mean: Math.round(mean(loadSamples) * 100) / 100,
        ok: ok ? 'yes' : 'no',
      },
      table,
    );
    return ok ? 0 : 1;
  } finally {
    for (const c of clients) c.abandon = true;
    await Promise.all(loads.map((l) => l.stop().catch(() => {})));
    await sup.stopAll();
    await pool.end().catch(() => {});
    await stack.close();
  }
}

/** Least-squares slope of (ms, MiB) points, in MiB per minute (0 with fewer than two points). */
export function slopePerMinute(points: readonly (readonly [number, number])[]): number {
  if (points.length < 2) return 0;
  const n = points.length;
  const mx = points.reduce((a, p) => a + p[0], 0) / n;
  const my = points.reduce((a, p) => a + p[1], 0) / n;
  let num = 0;
  let den = 0;
  for (const [x, y] of points) {
    num += (x - mx) * (y - my);
    den += (x - mx) ** 2;
  }
  return den ? (num / den) * 60_000 : 0;
}

/** The heap figures (MiB) of a service's /metrics, or null when it did not answer. */
async function heapOf(opsPort: number): Promise<{ used: number; oldSpace: number; external: number } | null> {
  try {
    const r = await fetch(`http://127.0.0.1:${opsPort}/metrics`, { signal: AbortSignal.timeout(3000) });
    const text = await r.text();
    const val = (re: RegExp) => Number(re.exec(text)?.[1] ?? NaN) / 2 ** 20;
    return {
      used: val(/^nodejs_heap_size_used_bytes\{[^}]*\} (\S+)/m),
      oldSpace: val(/^nodejs_heap_space_size_used_bytes\{[^}]*space="old"[^}]*\} (\S+)/m),
      external: val(/^nodejs_external_memory_bytes\{[^}]*\} (\S+)/m),
    };
  } catch {
    return null;
  }
}

/**
 * The full collections `--trace-gc` printed into a service log: the process's uptime in ms and the
 * heap in MiB after the collection (V8 prints `... 1234 ms: Mark-Compact 210.3 (230.1) -> 150.2
 * (228.4) MB, ...`).
 */
export function markCompacts(logFile: string): { atMs: number; after: number }[] {
  let text = '';
  try {
    text = readFileSync(logFile, 'utf8');
  } catch {
    return [];
  }
  const out: { atMs: number; after: number }[] = [];
  for (const m of text.matchAll(
    /\s(\d+) ms: Mark-Compact[^\n]*? [\d.]+ \([\d.]+\) -> ([\d.]+) \([\d.]+\) MB/g,
  ))
    out.push({ atMs: Number(m[1]), after: Number(m[2]) });
  return out;
}

export interface LiveHeapGrowth {
  /** Mean heap after a full collection (MiB) over the first quarter after minute 2, and the last. */
  readonly from: number;
  readonly to: number;
  readonly growth: number;
  /** Full collections in the whole log. */
  readonly n: number;
}

/**
 * Growth of the heap after full collections from minute 2 to the end of a run of `endMs` (ms since
 * the load started): the mean over the first quarter of [2 min, end] against the mean over the last
 * quarter (each at least a minute). `offsetMs`: the process's uptime when the load started. Null
 * when either quarter has fewer than 2 full collections (the old space did not fill: not measured).
 */
export function liveHeapGrowth(
  gcs: readonly { atMs: number; after: number }[],
  offsetMs: number,
  endMs: number,
): LiveHeapGrowth | null {
  const quarter = Math.max(60_000, (endMs - 120_000) / 4);
  const inWindow = (from: number, to: number) =>
    gcs.filter((x) => x.atMs >= from + offsetMs && x.atMs < to + offsetMs).map((x) => x.after);
  const first = inWindow(120_000, 120_000 + quarter);
  const last = inWindow(endMs - quarter, endMs + 1);
  if (first.length < 2 || last.length < 2) return null;
  const mean = (xs: number[]) => xs.reduce((a, b) => a + b, 0) / xs.length;
  const [from, to] = [mean(first), mean(last)];
  return { from, to, growth: (to - from) / from, n: gcs.length };
}
