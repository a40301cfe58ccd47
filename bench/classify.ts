// npm run bench -- classify --rows N: rows/s of validation + classification (the dry-run path), in process.
import { classifyOrders, validateOrdersRequest } from '@holdfast/domain';
import { generateOrders } from './generate-orders.js';
import { median, report } from './report.js';

export function benchClassify(args: Record<string, string>): Promise<void> {
  const rows = Number(args.rows ?? 1_000_000);
  const runs = Number(args.runs ?? 3);
  const batch = 5000;
  // Batches are serialised once; each run parses them afresh before its clock starts.
  const bodies: string[] = [];
  let buf: unknown[] = [];
  for (const o of generateOrders(rows)) {
    buf.push(o);
    if (buf.length === batch) {
      bodies.push(JSON.stringify({ orders: buf }));
      buf = [];
    }
  }
  if (buf.length) bodies.push(JSON.stringify({ orders: buf }));
  const rates: number[] = [];
  const now = new Date();
  for (let run = 0; run < runs; run++) {
    // Fresh objects every run (as each request brings), parsed outside the timed part: the figure is
    // validation + classification alone, as the issue defines it.
    const parsed: unknown[] = bodies.map((b) => JSON.parse(b) as unknown);
    const t0 = process.hrtime.bigint();
    let accepted = 0;
    for (const body of parsed) {
      const v = validateOrdersRequest(body);
      if (!v.ok) throw new Error('generated batch failed validation');
      accepted += classifyOrders(v.rows, { now }).counters.accepted;
    }
    const s = Number(process.hrtime.bigint() - t0) / 1e9;
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
