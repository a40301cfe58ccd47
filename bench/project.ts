// npm run bench -- project --events N [--runs 3]: rows/s of the projector folding N order events
// already in Kafka into read_models.orders, beside rows/s of a raw COPY of the same rows into an
// identical table. The measurement itself is the projector engineer's `runProjectorBench` (reused, not
// duplicated); this wires it into the harness, repeats it and reports the median ratio.
import { runProjectorBench, type ProjectorBenchResult } from './projector-bench.js';
import { loadSettings } from '../infra/lib/settings.mjs';
import { up } from '../infra/lib/stack.mjs';
import { report } from './report.js';
import { repeat } from './runs.js';

export async function benchProject(args: Record<string, string>): Promise<void> {
  const n = Number(args.events ?? 200_000);
  const runs = Number(args.runs ?? 3);
  // runProjectorBench finds the stack through the environment: point it at the one `up` gives.
  const stack = await up(loadSettings(), (m) => console.error(`[infra] ${m}`));
  Object.assign(process.env, {
    DATABASE_URL: stack.DATABASE_URL,
    KAFKA_BROKERS: stack.KAFKA_BROKERS,
    SCHEMA_REGISTRY_URL: stack.SCHEMA_REGISTRY_URL,
  });
  let peakRss = 0;
  const timer = setInterval(() => (peakRss = Math.max(peakRss, process.memoryUsage.rss())), 250);
  const ratio = (r: ProjectorBenchResult) => r.endToEndRowsPerSec / r.copyRowsPerSec;
  const {
    median,
    medianRun: r,
    figures,
    loads,
  } = await repeat(
    'project',
    runs,
    () => runProjectorBench(n, (line) => console.error(line)),
    (x) => Math.round(ratio(x) * 1000) / 1000,
  );
  clearInterval(timer);
  report(
    'project',
    {
      events: n,
      runs,
      rows_per_s: r.endToEndRowsPerSec,
      copy_rows_per_s: r.copyRowsPerSec,
      apply_only_rows_per_s: r.applyOnlyRowsPerSec,
      ratio_to_copy: median,
      ratios: figures.join(' '),
      loads: loads.join(' '),
      peak_rss_mb: { bench_with_projector_in_process: Math.round(peakRss / 2 ** 20) },
    },
    [
      ['order events', n],
      ['projector rows/s (Kafka → read_models.orders)', r.endToEndRowsPerSec],
      ['apply only rows/s (no Kafka)', r.applyOnlyRowsPerSec],
      ['raw COPY rows/s (same rows, identical table)', r.copyRowsPerSec],
      ['projector / COPY (median of runs)', `${(median * 100).toFixed(1)} % (target ≥ 40 %)`],
      ['runs: ratios / load averages', `${figures.join(' ')} / ${loads.join(' ')}`],
    ],
  );
}
