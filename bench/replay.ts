// npm run bench -- replay --events N [--runs 3]: events/s of a full rebuild of the read models
// (`holdfast replay`: rebuildReadModels folds every topic from offset 0 into `<schema>_next`, then
// switches it in). N OrderUpserted events (generated orders, classified as the gateway does) are
// appended once; each run rebuilds from them.
import { randomUUID } from 'node:crypto';
import { EventCodec, type OrderUpserted } from '@holdfast/contracts';
import { classifyOrders, validateOrdersRequest } from '@holdfast/domain';
import { createKafka, topicName, TransactionalAppender } from '@holdfast/kafka';
import { silentLogger, EnvReader, readKafkaClientKind } from '@holdfast/platform';
import { rebuildReadModels } from '@holdfast/projector';
import { generateOrders } from './generate-orders.js';
import { profiled } from './in-process-profile.js';
import { report } from './report.js';
import { repeat } from './runs.js';
import { RssSampler } from './rss.js';
import { benchStack } from './stack.js';
import { DEFAULT_READ_MODEL_SCHEMA } from '@holdfast/read-models';

const BATCH = 5000;

export async function benchReplay(args: Record<string, string>): Promise<void> {
  const n = Number(args.events ?? 200_000);
  const runs = Number(args.runs ?? 3);
  const stack = await benchStack(Number(args.partitions ?? 4));
  const kafka = createKafka(
    stack.env.KAFKA_BROKERS!.split(','),
    'bench-replay',
    silentLogger,
    undefined,
    readKafkaClientKind(new EnvReader(process.env)),
  );
  const codec = await EventCodec.connect(stack.env.SCHEMA_REGISTRY_URL!);
  try {
    const accountId = randomUUID();
    const appender = await TransactionalAppender.create(kafka, { name: `${stack.prefix}bench`, size: 1 });
    const topic = topicName(stack.prefix, 'holdfast.commerce');
    const now = new Date('2026-11-22T00:00:00Z');
    let appended = 0;
    let rows: unknown[] = [];
    const flush = async () => {
      const v = validateOrdersRequest({ orders: rows });
      if (!v.ok) throw new Error('generated batch failed validation');
      const batchId = randomUUID();
      const records = classifyOrders(v.rows, { now }).accepted.map((order) => {
        const value: OrderUpserted = {
          metadata: {
            account_id: accountId,
            event_id: randomUUID(),
            batch_id: batchId,
            request_id: null,
            key_id: null,
            received_at: now.toISOString(),
          },
          order,
          personal: null,
        };
        return { topic, key: accountId, value: codec.encode('OrderUpserted', value) };
      });
      await appender.append(records);
      appended += records.length;
      rows = [];
    };
    for (const o of generateOrders(n)) {
      rows.push(o);
      if (rows.length === BATCH) await flush();
    }
    if (rows.length) await flush();
    await appender.close();
    console.error(`appended ${appended.toLocaleString('en-US')} OrderUpserted events`);

    const sampler = new RssSampler({ bench: () => [process.pid], ...stack.pids() }).start();
    const deps = { pool: stack.pool, kafka, codec, logger: silentLogger };
    // `--analyze-ms N`: refresh the statistics of the schema being rebuilt every N ms, an experiment
    // measuring the projector fix proposed in docs/performance.md (not part of the rebuild).
    const analyzeMs = Number(args['analyze-ms'] ?? 0);
    const analyzer = analyzeMs
      ? setInterval(
          () =>
            void stack.pool
              .query('analyze read_models_next.customers, read_models_next.orders')
              .catch(() => {}),
          analyzeMs,
        )
      : undefined;
    const { median, medianRun, figures, loads } = await repeat(
      'replay',
      runs,
      async () => {
        const r = await profiled(args.profile, `replay-${Date.now()}`, () =>
          rebuildReadModels(
            { topicPrefix: stack.prefix, readSchema: DEFAULT_READ_MODEL_SCHEMA, projections: ['commerce'] },
            deps,
          ),
        );
        return { eventsPerS: Math.round(appended / (r.elapsedMs / 1000)), seconds: r.elapsedMs / 1000 };
      },
      (r) => r.eventsPerS,
    );
    clearInterval(analyzer);
    const { rows: c } = await stack.pool.query<{ n: number }>(
      'select count(*)::int as n from read_models.orders where account_id = $1',
      [accountId],
    );
    report(
      'replay',
      {
        events: appended,
        runs,
        events_per_s: median,
        seconds: Math.round(medianRun.seconds * 10) / 10,
        rates: figures.join(' '),
        loads: loads.join(' '),
        analyze_ms: analyzeMs,
        orders_after_rebuild: c[0]!.n,
        peak_rss_mb: sampler.stop(),
      },
      [
        ['events in the log', appended],
        ['events/s, full rebuild (median)', `${median.toLocaleString('en-US')} (target ≥ 30,000)`],
        ['runs: events/s / load averages', `${figures.join(' ')} / ${loads.join(' ')}`],
        ['orders in read_models.orders after the switch', c[0]!.n],
      ],
    );
  } finally {
    await stack.close();
  }
}
