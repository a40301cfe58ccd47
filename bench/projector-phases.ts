// Where the projector's time goes, statement by statement: the commerce projection applied (no Kafka)
// to generated orders, with every PostgreSQL query timed by its first words. A diagnostic for the
// projector's owners, not a figure of the issue:
//   node --conditions=source --import tsx bench/projector-phases.ts [orders=50000]
import pg from 'pg';
import { profiled } from './in-process-profile.js';
import { commerceRunner, orderChunks } from './commerce-chunks.js';
import { benchStack } from './stack.js';

const n = Number(process.argv[2] ?? 50_000);
const spent = new Map<string, { ms: number; calls: number }>();
const last = new Map<string, [string, unknown[]]>();
const query = pg.Client.prototype.query;
pg.Client.prototype.query = function (this: pg.Client, ...args: unknown[]) {
  const text = typeof args[0] === 'string' ? args[0] : ((args[0] as { text?: string })?.text ?? 'copy');
  const label = `${text.replace(/\s+/g, ' ').trim().slice(0, 60)} [${text.length}]`;
  if (typeof args[0] === 'string' && Array.isArray(args[1])) last.set(label, [args[0], args[1]]);
  const t0 = performance.now();
  const r = (query as (...a: unknown[]) => unknown).apply(this, args);
  const done = () => {
    const s = spent.get(label) ?? { ms: 0, calls: 0 };
    spent.set(label, { ms: s.ms + performance.now() - t0, calls: s.calls + 1 });
  };
  if (r && typeof (r as Promise<unknown>).then === 'function') (r as Promise<unknown>).then(done, done);
  else if (r && typeof (r as NodeJS.EventEmitter).on === 'function')
    (r as NodeJS.EventEmitter).on('finish', done);
  return r;
} as typeof query;

const stack = await benchStack(1);
try {
  const { codec, runner } = await commerceRunner(stack);
  const chunks = orderChunks(codec, n);
  let total = 0;
  // Applied as the consumer hands them over: each chunk with the next one as `upcoming`.
  // `--profile DIR`: a CPU profile of this loop alone.
  const profileDir = process.argv.includes('--profile')
    ? process.argv[process.argv.indexOf('--profile') + 1]
    : undefined;
  await profiled(profileDir, 'projector-phases', async () => {
    for (const [i, records] of chunks.entries()) {
      const t0 = performance.now();
      await runner.handle({ topic: 't', partition: 0, records, upcoming: chunks[i + 1] });
      total += performance.now() - t0;
      // `--analyze`: statistics refreshed after every chunk (timed too), as the proposed fix would.
      if (process.argv.includes('--analyze')) {
        const a0 = performance.now();
        await stack.pool.query('analyze phases.customers, phases.orders');
        total += performance.now() - a0;
      }
    }
  });
  console.log(`${n} orders: ${Math.round(n / (total / 1000))} rows/s apply only; statements:`);
  for (const [label, s] of [...spent].sort((a, b) => b[1].ms - a[1].ms).slice(0, 14))
    console.log(`${s.ms.toFixed(0).padStart(7)} ms ${String(s.calls).padStart(3)}×  ${label}`);
  // The plan of the costliest statement, as the projector runs it (hash and merge joins off).
  const [top] = [...spent].sort((a, b) => b[1].ms - a[1].ms).find(([l]) => last.has(l)) ?? [];
  if (top && process.argv.includes('--explain')) {
    const c = await stack.pool.connect();
    await c.query('begin; set local enable_hashjoin = off; set local enable_mergejoin = off');
    const [text, params] = last.get(top)!;
    const { rows: plan } = await c.query(`explain (analyze, buffers) ${text}`, params);
    console.log(plan.map((r: Record<string, string>) => r['QUERY PLAN']).join('\n'));
    await c.query('rollback');
    // The same statement once the tables' statistics are current.
    await c.query('analyze phases.customers; analyze phases.orders');
    await c.query('begin; set local enable_hashjoin = off; set local enable_mergejoin = off');
    const { rows: after } = await c.query(`explain (analyze, buffers) ${text}`, params);
    console.log('--- after ANALYZE ---');
    console.log(after.map((r: Record<string, string>) => r['QUERY PLAN']).join('\n'));
    await c.query('rollback');
    c.release();
  }
} finally {
  await stack.close();
}
