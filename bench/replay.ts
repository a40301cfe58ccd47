// npm run bench -- replay --events N [--runs 3]: events/s of a full rebuild of the read models
// (`holdfast replay`: rebuildReadModels folds every topic from offset 0 into `<schema>_next`, then
// switches it in). N OrderUpserted events (generated orders, classified as the gateway does) are
// appended once; each run rebuilds from them.
// `--sealing both`: the same orders are also appended sealed (`sealPersonal`, as the gateway writes
// them: keys in this bench's database) under a second topic prefix; each run is then a pair, a
// rebuild of the sealed log and one of the log in clear, the order alternating (docs/privacy.md, "Cost").
import { randomUUID } from 'node:crypto';
import { EventCodec, type OrderUpserted } from '@holdfast/contracts';
import { classifyOrders, validateOrdersRequest } from '@holdfast/domain';
import { createKafka, ensureTopics, topicName, TransactionalAppender } from '@holdfast/kafka';
import { loadPrivacyKeyring, PgSubjectKeyStore, sealPersonal, SubjectKeyCache } from '@holdfast/privacy';
import { silentLogger } from '@holdfast/platform';
import { rebuildReadModels } from '@holdfast/projections';
import { generateOrders } from './generate-orders.js';
import { profiled } from './in-process-profile.js';
import { median as medianOf, report } from './report.js';
import { load1m, repeat } from './runs.js';
import { RssSampler } from './rss.js';
import { benchStack } from './stack.js';
import { DEFAULT_READ_MODEL_SCHEMA } from '@holdfast/read-models';

const BATCH = 5000;

export async function benchReplay(args: Record<string, string>): Promise<void> {
  const n = Number(args.events ?? 200_000);
  const runs = Number(args.runs ?? 3);
  const stack = await benchStack(Number(args.partitions ?? 4));
  const kafka = createKafka(stack.env.KAFKA_BROKERS!.split(','), 'bench-replay', silentLogger);
  const codec = await EventCodec.connect(stack.env.SCHEMA_REGISTRY_URL!);
  try {
    const accountId = randomUUID();
    const appender = await TransactionalAppender.create(kafka, { name: `${stack.prefix}bench`, size: 1 });
    const topic = topicName(stack.prefix, 'holdfast.commerce');
    const both = args.sealing === 'both';
    const sealedPrefix = `${stack.prefix}sealed-`;
    const sealedTopic = topicName(sealedPrefix, 'holdfast.commerce');
    const keys = both
      ? new SubjectKeyCache(new PgSubjectKeyStore(stack.pool, loadPrivacyKeyring(process.env)))
      : undefined;
    if (both) {
      const ka = kafka.admin();
      await ka.connect();
      await ensureTopics(ka, sealedPrefix, Number(args.partitions ?? 4));
      await ka.disconnect();
    }
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
        return value;
      });
      await appender.append(
        records.map((value) => ({ topic, key: accountId, value: codec.encode('OrderUpserted', value) })),
      );
      if (keys) {
        const sealed = await sealPersonal(
          keys,
          accountId,
          records.map((value) => ({ type: 'OrderUpserted' as const, value })),
        );
        await appender.append(
          sealed.map((value) => ({
            topic: sealedTopic,
            key: accountId,
            value: codec.encode('OrderUpserted', value),
          })),
        );
      }
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
    if (both) {
      await sealedPairs(
        runs,
        appended,
        (prefix) =>
          rebuildReadModels(
            { topicPrefix: prefix, readSchema: DEFAULT_READ_MODEL_SCHEMA, projections: ['commerce'] },
            deps,
          ),
        { on: sealedPrefix, off: stack.prefix },
      );
      sampler.stop();
      return;
    }
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

/**
 * `--sealing both`: `runs` pairs of rebuilds, one of the sealed log and one of the log in clear, the
 * order alternating; the median of each side and of the pairs' ratios, with the load at each pair.
 */
async function sealedPairs(
  runs: number,
  events: number,
  rebuild: (prefix: string) => Promise<{ elapsedMs: number }>,
  prefixes: { on: string; off: string },
): Promise<void> {
  const on: number[] = [];
  const off: number[] = [];
  const ratios: number[] = [];
  const loads: number[] = [];
  for (let run = 0; run < runs; run++) {
    loads.push(load1m());
    const pair: Record<'on' | 'off', number> = { on: 0, off: 0 };
    for (const side of run % 2 ? (['off', 'on'] as const) : (['on', 'off'] as const)) {
      const r = await rebuild(prefixes[side]);
      pair[side] = Math.round(events / (r.elapsedMs / 1000));
      console.error(`  sealing ${side}: ${pair[side].toLocaleString('en-US')} events/s`);
    }
    on.push(pair.on);
    off.push(pair.off);
    ratios.push(Math.round((pair.on / pair.off) * 1000) / 1000);
    console.error(`replay sealing on/off run ${run + 1}/${runs}: ${ratios[run]} (load ${loads[run]})`);
  }
  report(
    'replay-sealing',
    {
      events,
      runs,
      sealed_events_per_s: medianOf(on),
      clear_events_per_s: medianOf(off),
      median_ratio: medianOf(ratios),
      pairs: on.map((v, i) => `${v}/${off[i]}`).join(' '),
      loads: loads.join(' '),
    },
    [
      ['median events/s, sealed log', medianOf(on)],
      ['median events/s, log in clear', medianOf(off)],
      ["median of the pairs' on/off ratios", medianOf(ratios)],
      [
        'pairs (on/off events/s) / load averages',
        `${on.map((v, i) => `${v}/${off[i]}`).join(' ')} / ${loads.join(' ')}`,
      ],
    ],
  );
}
