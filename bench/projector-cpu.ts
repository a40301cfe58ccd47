// CPU per order of the commerce projection applied without Kafka (as projector-phases does), counted
// as the bench process's CPU plus that of every PostgreSQL backend of the bench database (/proc): unlike
// a rate, it hardly moves with what else the two cores run. Compare two commits with it side by side:
//   node --conditions=source --import tsx bench/projector-cpu.ts [orders=100000]
import { readFileSync } from 'node:fs';
import { commerceRunner, orderChunks } from './commerce-chunks.js';
import { benchStack } from './stack.js';

const n = Number(process.argv[2] ?? 100_000);
const tick = 100; // USER_HZ
const cpuOf = (pid: number) => {
  try {
    const f = readFileSync(`/proc/${pid}/stat`, 'utf8').split(') ')[1]!.split(' ');
    return (Number(f[11]) + Number(f[12])) / tick; // utime + stime, s
  } catch {
    return 0;
  }
};
const stack = await benchStack(1);
try {
  const { codec, runner } = await commerceRunner(stack);
  const chunks = orderChunks(codec, n);
  const offset = chunks.reduce((sum, c) => sum + c.length, 0); // records applied
  // Warm the pool's connections so their backends exist before the first reading.
  await Promise.all(Array.from({ length: 4 }, () => stack.pool.query('select 1')));
  const db = (await stack.pool.query<{ d: string }>('select current_database() as d')).rows[0]!.d;
  const backends = async () =>
    (
      await stack.pool.query<{ pid: number }>('select pid from pg_stat_activity where datname = $1', [db])
    ).rows.map((r) => r.pid);
  const pgBefore = new Map((await backends()).map((p) => [p, cpuOf(p)]));
  const c0 = process.cpuUsage();
  const t0 = performance.now();
  for (const [i, records] of chunks.entries())
    await runner.handle({ topic: 't', partition: 0, records, upcoming: chunks[i + 1] });
  const wall = (performance.now() - t0) / 1000;
  const c = process.cpuUsage(c0);
  let pg = 0;
  for (const p of await backends()) pg += cpuOf(p) - (pgBefore.get(p) ?? 0);
  const node = (c.user + c.system) / 1e6;
  const load = readFileSync('/proc/loadavg', 'utf8').split(' ')[0];
  console.log(
    JSON.stringify({
      orders: offset,
      wall_s: +wall.toFixed(2),
      rows_per_s: Math.round(offset / wall),
      node_cpu_s: +node.toFixed(2),
      pg_cpu_s: +pg.toFixed(2),
      us_per_row: +(((node + pg) * 1e6) / offset).toFixed(1),
      node_us: +((node * 1e6) / offset).toFixed(1),
      pg_us: +((pg * 1e6) / offset).toFixed(1),
      load,
    }),
  );
} finally {
  await stack.close();
}
