// npm run bench -- produce [--records N] [--runs 3] [--clients kafkajs,platformatic]: the Kafka
// client alone, without gateway or projector, through the project's appenders: (1) transactional
// appends of 5,000 records (the backfill's batches) from 4 concurrent callers, and (2) idempotent
// single-partition appends of 50 records (pixel requests) from 16 concurrent callers. Each run
// measures every client in turn, the order alternating (load drifts), on fresh topics of its own.
import { randomUUID } from 'node:crypto';
import { cpus } from 'node:os';
import {
  IdempotentBatchAppender,
  TransactionalAppender,
  createKafka,
  type KafkaClient,
  type OutgoingRecord,
} from '@holdfast/kafka';
import { createLogger, type KafkaClientKind } from '@holdfast/platform';
import { median, report } from './report.js';
import { load1m } from './runs.js';

// About the size of a sealed order record.
const VALUE = Buffer.alloc(1500, 'x');

async function freshTopic(kafka: KafkaClient, partitions: number): Promise<string> {
  const topic = `bench-produce-${randomUUID().slice(0, 8)}`;
  const admin = kafka.admin();
  await admin.connect();
  // KRaft answers "does not host this topic-partition" for a moment after a creation: asked again.
  for (let attempt = 1; ; attempt++) {
    try {
      if (!(await admin.listTopics()).includes(topic))
        await admin.createTopics([{ topic, partitions, replicationFactor: 1, configs: {} }]);
      await admin.topicPartitions([topic]);
      break;
    } catch (err) {
      if (attempt >= 20) throw err;
      await new Promise((r) => setTimeout(r, 200 * attempt));
    }
  }
  await admin.disconnect();
  return topic;
}

/** Runs `callers` loops that take the next chunk until none is left; records per second. */
async function drive(
  chunks: OutgoingRecord[][],
  callers: number,
  append: (c: OutgoingRecord[]) => Promise<void>,
): Promise<number> {
  let next = 0;
  const total = chunks.reduce((s, c) => s + c.length, 0);
  const t0 = performance.now();
  await Promise.all(
    Array.from({ length: callers }, async () => {
      for (let i = next++; i < chunks.length; i = next++) await append(chunks[i]!);
    }),
  );
  return Math.round(total / ((performance.now() - t0) / 1000));
}

async function once(kind: KafkaClientKind, brokers: string[], n: number) {
  const logger = createLogger('bench-produce', 'warn');
  const kafka = createKafka(brokers, 'bench-produce', logger, undefined, kind);
  const txTopic = await freshTopic(kafka, 12);
  const pxTopic = await freshTopic(kafka, 12);
  const tx = await TransactionalAppender.create(kafka, { name: `bench-${kind}`, size: 4 });
  const txChunks = Array.from({ length: Math.ceil(n / 5000) }, (_, c) =>
    Array.from({ length: 5000 }, (_, i): OutgoingRecord => ({
      topic: txTopic,
      key: `acct-${c}`,
      headers: { 'request-id': `r-${c}-${i}` },
      value: VALUE,
    })),
  );
  const t0 = process.cpuUsage();
  const txRate = await drive(txChunks, 4, (c) => tx.append(c));
  const txCpu = process.cpuUsage(t0);
  await tx.close();
  const px = await IdempotentBatchAppender.create(kafka, { size: 4 });
  const pxChunks = Array.from({ length: Math.ceil(n / 50) }, (_, c) =>
    Array.from({ length: 50 }, () => ({ topic: pxTopic, key: `acct-${c % 997}`, value: VALUE })),
  );
  const t1 = process.cpuUsage();
  const pxRate = await drive(pxChunks, 16, (c) => px.append(c));
  const pxCpu = process.cpuUsage(t1);
  await px.close();
  const cpuMsPer1k = (u: NodeJS.CpuUsage) => Math.round(((u.user + u.system) / 1000 / n) * 1000);
  return { txRate, pxRate, txCpu: cpuMsPer1k(txCpu), pxCpu: cpuMsPer1k(pxCpu) };
}

export async function benchProduce(args: Record<string, string>): Promise<void> {
  const n = Number(args.records ?? 100_000);
  const runs = Number(args.runs ?? 3);
  const kinds = (args.clients ?? 'kafkajs,platformatic').split(',') as KafkaClientKind[];
  const brokers = (process.env.KAFKA_BROKERS ?? '127.0.0.1:9092').split(',');
  const results = new Map<KafkaClientKind, Awaited<ReturnType<typeof once>>[]>(kinds.map((k) => [k, []]));
  const loads: number[] = [];
  for (let run = 0; run < runs; run++) {
    const order = run % 2 ? [...kinds].reverse() : kinds;
    for (const kind of order) {
      loads.push(load1m());
      const r = await once(kind, brokers, n);
      results.get(kind)!.push(r);
      console.error(
        `run ${run + 1}/${runs} ${kind}: transactional ${r.txRate.toLocaleString('en-US')} records/s (CPU ${r.txCpu} ms/1k), idempotent ${r.pxRate.toLocaleString('en-US')} records/s (CPU ${r.pxCpu} ms/1k) (load ${loads[loads.length - 1]})`,
      );
    }
  }
  const figures: Record<string, number> = {};
  for (const [kind, rs] of results) {
    figures[`${kind}_tx_records_per_s`] = median(rs.map((r) => r.txRate));
    figures[`${kind}_idempotent_records_per_s`] = median(rs.map((r) => r.pxRate));
    figures[`${kind}_tx_cpu_ms_per_1k`] = median(rs.map((r) => r.txCpu));
    figures[`${kind}_idempotent_cpu_ms_per_1k`] = median(rs.map((r) => r.pxCpu));
  }
  report('produce', { records: n, runs, loads: loads.join(' '), cores_seen: cpus().length, ...figures }, [
    ...Object.entries(figures).map(([k, v]): [string, number] => [k, v]),
  ]);
}
