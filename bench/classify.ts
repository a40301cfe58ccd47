// npm run bench -- classify --rows N: rows/s of validation + classification (the dry-run path), in process.
import { classifyOrders, validateOrdersRequest } from '@holdfast/domain';
import { generateOrders } from './generate-orders.js';
import { median, report } from './report.js';

export function benchClassify(args: Record<string, string>): Promise<void> {
  const rows = Number(args.rows ?? 1_000_000);
  const runs = Number(args.runs ?? 3);
  const rates: number[] = [];
  const now = new Date();
  for (let run = 0; run < runs; run++) {
    // Each 5,000-row batch is generated, serialised and parsed afresh (as each request brings it) and
    // only its validation + classification is timed: the figure the issue defines, and no more than
    // one batch is alive at a time (holding 1M parsed rows took the bench process to 2.5 GiB).
    let timed = 0n;
    let accepted = 0;
    for (const body of batchBodies(rows, 5000)) {
      const parsed = JSON.parse(body) as unknown;
      const t0 = process.hrtime.bigint();
      const v = validateOrdersRequest(parsed);
      if (!v.ok) throw new Error('generated batch failed validation');
      accepted += classifyOrders(v.rows, { now }).counters.accepted;
      timed += process.hrtime.bigint() - t0;
    }
    const s = Number(timed) / 1e9;
    rates.push(rows / s);
    console.error(
      `run ${run + 1}: ${Math.round(rows / s).toLocaleString('en-US')} rows/s (${accepted} accepted)`,
    );
  }
  const rowsPerS = Math.round(median(rates));
  report(
    'classify',
    {
      rows,
      runs,
      rows_per_s: rowsPerS,
      peak_rss_mb: { bench: Math.round(process.resourceUsage().maxRSS / 1024) },
    },
    [
      ['rows', rows],
      ['runs (median reported)', runs],
      ['rows/s (validate + classify)', rowsPerS],
      ['target', '150,000 rows/s'],
    ],
  );
  return Promise.resolve();
}

/** `rows` generated orders as request bodies of `size` rows each, one at a time. */
function* batchBodies(rows: number, size: number): Generator<string> {
  let buf: unknown[] = [];
  for (const o of generateOrders(rows)) {
    buf.push(o);
    if (buf.length === size) {
      yield JSON.stringify({ orders: buf });
      buf = [];
    }
  }
  if (buf.length) yield JSON.stringify({ orders: buf });
}
