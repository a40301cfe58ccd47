// npm run bench -- backfill --orders N: generated orders sent by the backfill client in 5,000-row
// batches through the gateway; measured from the first request until the last order is visible in
// read_models.orders. Gateway and projector run as their own processes, as in production.
import { createWriteStream } from 'node:fs';
import { mkdir, mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { once } from 'node:events';
import { runBackfill } from '@holdfast/cli';
import { generateOrders } from './generate-orders.js';
import { median as medianOf, report, type Figures } from './report.js';
import { cpuSeconds, RssSampler } from './rss.js';
import { repeat } from './runs.js';
import { benchStack } from './stack.js';

async function writeFile(path: string, n: number): Promise<number> {
  const out = createWriteStream(path);
  const ids = new Set<string>();
  for (const o of generateOrders(n)) {
    ids.add(o.order_id as string);
    if (!out.write(JSON.stringify(o) + '\n')) await once(out, 'drain');
  }
  out.end();
  await once(out, 'finish');
  return ids.size;
}

/** Whether the gateway seals personal fields (`--sealing off`: in clear, test mode only). */
type Sealing = 'on' | 'off';

function serviceEnv(args: Record<string, string>, sealing: Sealing = 'on'): Record<string, string> {
  return {
    ...(args['producer-pool'] ? { PRODUCER_POOL_SIZE: args['producer-pool'] } : {}),
    ...(sealing === 'off' ? { HOLDFAST_TEST_MODE: '1', HOLDFAST_UNSAFE_UNSEALED: '1' } : {}),
  };
}

/** `--profile DIR`: gateway and projector write a .cpuprofile there when they stop. */
function nodeArgs(args: Record<string, string>): string[] {
  return args.profile ? ['--cpu-prof', `--cpu-prof-dir=${args.profile}`] : [];
}

export async function benchBackfill(args: Record<string, string>): Promise<void> {
  const n = Number(args.orders ?? 1_000_000);
  const runs = Number(args.runs ?? 3);
  const dir = await mkdtemp(join(tmpdir(), 'holdfast-bench-'));
  const file = join(dir, 'orders.ndjson');
  console.error(`generating ${n.toLocaleString('en-US')} orders ...`);
  const distinct = await writeFile(file, n);
  try {
    // `--sealing both`: what sealing personal fields costs, side by side. Each run is a pair, sealed
    // and in clear, their order alternating (load drifts): the medians of both sides and their ratio.
    if (args.sealing === 'both') {
      const pairs = await repeat(
        'backfill sealing on/off',
        runs,
        async (run) => {
          const order: Sealing[] = run % 2 ? ['off', 'on'] : ['on', 'off'];
          const out = {} as Record<Sealing, number> & { cpu: Record<Sealing, [number, number]> };
          out.cpu = {} as Record<Sealing, [number, number]>;
          for (const sealing of order) {
            const r = await backfillOnce(args, n, distinct, file, join(dir, `${run}-${sealing}`), sealing);
            out[sealing] = r.figures.orders_per_s as number;
            out.cpu[sealing] = [
              r.figures.gateway_cpu_ms_per_1k_orders as number,
              r.figures.projector_cpu_ms_per_1k_orders as number,
            ];
            console.error(
              `  sealing ${sealing}: ${out[sealing].toLocaleString('en-US')} orders/s, CPU ms per 1k orders gateway/projector ${out.cpu[sealing].join('/')}`,
            );
          }
          return out;
        },
        (r) => r.on / r.off,
      );
      const on = medianOf(pairs.results.map((r) => r.on));
      const off = medianOf(pairs.results.map((r) => r.off));
      const cpu = (s: Sealing, i: 0 | 1) => medianOf(pairs.results.map((r) => r.cpu[s][i]));
      report(
        'backfill-sealing',
        {
          orders: n,
          runs,
          sealed_orders_per_s: on,
          clear_orders_per_s: off,
          median_ratio: Math.round(pairs.median * 1000) / 1000,
          gateway_cpu_ms_per_1k_on_off: `${cpu('on', 0)}/${cpu('off', 0)}`,
          projector_cpu_ms_per_1k_on_off: `${cpu('on', 1)}/${cpu('off', 1)}`,
          pairs: pairs.results.map((r) => `${r.on}/${r.off}`).join(' '),
          loads: pairs.loads.join(' '),
        },
        [
          ['median orders/s, sealing on', on],
          ['median orders/s, sealing off', off],
          ["median of the pairs' on/off ratios", pairs.median.toFixed(3)],
          [
            'pairs (on/off orders/s) / load averages',
            `${pairs.results.map((r) => `${r.on}/${r.off}`).join(' ')} / ${pairs.loads.join(' ')}`,
          ],
        ],
      );
      return;
    }
    const { median, medianRun, figures, loads } = await repeat(
      'backfill',
      runs,
      (run) => backfillOnce(args, n, distinct, file, join(dir, String(run))),
      (f) => f.figures.orders_per_s as number,
    );
    report(
      'backfill',
      { ...medianRun.figures, orders_per_s: median, runs, rates: figures.join(' '), loads: loads.join(' ') },
      [...medianRun.table, ['runs: orders/s / load averages', `${figures.join(' ')} / ${loads.join(' ')}`]],
    );
  } finally {
    await rm(dir, { recursive: true, force: true });
  }
}

async function backfillOnce(
  args: Record<string, string>,
  n: number,
  distinct: number,
  file: string,
  dir: string,
  sealing: Sealing = args.sealing === 'off' ? 'off' : 'on',
): Promise<{ figures: Figures; table: [string, string | number][] }> {
  const concurrency = Number(args.concurrency ?? 4);
  await mkdir(dir, { recursive: true });
  const stack = await benchStack(Number(args.partitions ?? 4));
  try {
    const projectorPort = await stack.startService('projector', serviceEnv(args, sealing), nodeArgs(args));
    // The projector's own gauge: high watermark − next offset, per partition, after each chunk.
    const lagNow = async (): Promise<number> => {
      const text = await (await fetch(`http://127.0.0.1:${projectorPort}/metrics`)).text();
      let max = 0;
      for (const m of text.matchAll(/^holdfast_projector_lag_records\{[^}]*\} (\d+)/gm))
        max = Math.max(max, Number(m[1]));
      return max;
    };
    const gatewayPort = await stack.startService('gateway', serviceEnv(args, sealing), nodeArgs(args));
    const { accountId, key } = await stack.account();
    const sampler = new RssSampler(stack.pids()).start();
    // CPU seconds of the two services over the measured part (not their start-up).
    const groups = stack.pids();
    const cpuOf = (svc: 'gateway' | 'projector') =>
      (groups[svc]?.() ?? []).reduce((sum, pid) => sum + cpuSeconds(pid), 0);
    const cpu0 = { gateway: cpuOf('gateway'), projector: cpuOf('projector') };
    let maxLag = 0;
    let accepted = 0;
    const t0 = performance.now();
    const sending = runBackfill({
      kind: 'orders',
      file,
      url: `http://127.0.0.1:${gatewayPort}`,
      key,
      concurrency,
      dryRun: false,
      statePath: join(dir, 'state.json'),
      errorsPath: join(dir, 'errors.ndjson'),
      maxRows: 5000,
      maxBytes: 32 * 1024 * 1024,
      retries: 8,
      retryBaseMs: 500,
      timeoutMs: 120_000,
      signal: new AbortController().signal,
      stderr: () => {},
      stderrIsTTY: false,
    }).then((s) => {
      accepted = s.accepted;
      return s;
    });
    // `--analyze-ms N`: refresh the read models' statistics every N ms while the backfill runs: an
    // experiment measuring the projector fix proposed in docs/performance.md (stale statistics make
    // the email lookup scan every customer of the account), not part of the pipeline.
    const analyzeMs = Number(args['analyze-ms'] ?? 0);
    const analyzer = analyzeMs
      ? setInterval(
          () => void stack.pool.query('analyze read_models.customers, read_models.orders').catch(() => {}),
          analyzeMs,
        )
      : undefined;
    let sentAt = 0;
    void sending.then(() => (sentAt = performance.now()));
    let projected = 0;
    let polls = 0;
    for (;;) {
      const { rows } = await stack.pool.query<{ n: number }>(
        'select count(*)::int as n from read_models.orders where account_id = $1',
        [accountId],
      );
      projected = rows[0]!.n;
      // Once a second: rendering /metrics cost the projector ~3 % of its busy time at 5 per second.
      if (polls++ % 5 === 0) maxLag = Math.max(maxLag, await lagNow().catch(() => 0));
      if (sentAt && projected >= distinct) break;
      await new Promise((r) => setTimeout(r, 200));
    }
    clearInterval(analyzer);
    const cpuMsPer1k = (svc: 'gateway' | 'projector') =>
      Math.round(((cpuOf(svc) - cpu0[svc]) * 1_000_000) / n);
    const cpu = { gateway: cpuMsPer1k('gateway'), projector: cpuMsPer1k('projector') };
    const seconds = (performance.now() - t0) / 1000;
    const summary = await sending;
    const peak = sampler.stop();
    const ordersPerS = Math.round(n / seconds);
    if (projected !== distinct) throw new Error(`expected ${distinct} orders, found ${projected}`);
    return {
      figures: {
        orders: n,
        distinct_orders: distinct,
        orders_per_s: ordersPerS,
        seconds: Math.round(seconds * 10) / 10,
        send_seconds: Math.round(((sentAt - t0) / 1000) * 10) / 10,
        p50_ms: summary.request_p50_ms,
        p99_ms: summary.request_p99_ms,
        max_projection_lag_records: maxLag,
        projected_orders: projected,
        accepted,
        peak_rss_mb: peak,
        gateway_cpu_ms_per_1k_orders: cpu.gateway,
        projector_cpu_ms_per_1k_orders: cpu.projector,
      },
      table: [
        ['orders sent (rows, incl. re-posts)', n],
        ['distinct orders in read_models.orders', `${projected} of ${distinct}`],
        ['orders/s end to end', ordersPerS],
        ['seconds (first request → last order visible)', seconds.toFixed(1)],
        [
          'gateway p50 / p99 per 5,000-row batch (ms)',
          `${summary.request_p50_ms} / ${summary.request_p99_ms}`,
        ],
        ['highest projection lag (records, per partition)', maxLag],
        ['peak RSS MiB', JSON.stringify(peak)],
        ['CPU ms per 1,000 orders: gateway / projector', `${cpu.gateway} / ${cpu.projector}`],
      ],
    };
  } finally {
    await stack.close();
  }
}
