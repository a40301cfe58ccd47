// CPU per order of the commerce projection applied without Kafka (as projector-phases does), counted
// as the bench process's CPU plus that of every PostgreSQL backend of the bench database (/proc): unlike
// a rate, it hardly moves with what else the two cores run. Compare two commits with it side by side:
//   node --conditions=source --import tsx bench/projector-cpu.ts [orders=100000]
import { randomUUID } from 'node:crypto';
import { readFileSync } from 'node:fs';
import { EventCodec, type OrderUpserted } from '@holdfast/contracts';
import { classifyOrders, validateOrdersRequest } from '@holdfast/domain';
import type { ConsumedRecord } from '@holdfast/kafka';
import { silentLogger } from '@holdfast/platform';
import { PROJECTIONS, ProjectionRunner } from '@holdfast/projector';
import { ensureReadModelSchema } from '@holdfast/read-models';
import { generateOrders } from './generate-orders.js';
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
  const codec = await EventCodec.connect(stack.env.SCHEMA_REGISTRY_URL!);
  await ensureReadModelSchema(stack.pool, 'phases');
  const projection = PROJECTIONS.find((p) => p.name === 'commerce')!;
  const runner = new ProjectionRunner(projection, {
    pool: stack.pool,
    codec,
    schema: 'phases',
    logger: silentLogger,
    publisher: { publish: () => Promise.resolve() },
  });
  const account = randomUUID();
  const now = new Date('2026-11-22T00:00:00Z');
  const chunks: ConsumedRecord[][] = [];
  let rows: unknown[] = [];
  let offset = 0;
  const flush = () => {
    const v = validateOrdersRequest({ orders: rows });
    if (!v.ok) throw new Error('invalid');
    chunks.push(
      classifyOrders(v.rows, { now }).accepted.map((order): ConsumedRecord => {
        const value: OrderUpserted = {
          metadata: {
            account_id: account,
            event_id: randomUUID(),
            batch_id: 'b',
            request_id: null,
            key_id: null,
            received_at: now.toISOString(),
          },
          order,
        };
        return {
          topic: 't',
          partition: 0,
          offset: String(offset++),
          key: null,
          value: codec.encode('OrderUpserted', value),
          timestamp: '0',
        };
      }),
    );
    rows = [];
  };
  for (const o of generateOrders(n)) {
    rows.push(o);
    if (rows.length === 5000) flush();
  }
  if (rows.length) flush();
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
