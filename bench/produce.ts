// npm run bench -- produce [--records N] [--runs 3]: the Kafka client alone, without gateway or
// projector, through the project's appenders: (1) transactional appends of 5,000 records of one key
// (the backfill's batches) from 4 concurrent callers, and (2) idempotent single-partition appends of
// 50 records (pixel requests) from 16 concurrent callers, each run on fresh topics of its own. It
// chose the client (docs/performance.md, "Kafka client"), and shows what the client costs alone.
import { randomUUID } from 'node:crypto';
import {
  IdempotentBatchAppender,
  TransactionalAppender,
  createKafka,
  type KafkaClient,
  type OutgoingRecord,
} from '@holdfast/kafka';
import { createLogger } from '@holdfast/platform';
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

async function once(brokers: string[], n: number) {
  const logger = createLogger('bench-produce', 'warn');
  const kafka = createKafka(brokers, 'bench-produce', logger);
  const txTopic = await freshTopic(kafka, 12);
  const pxTopic = await freshTopic(kafka, 12);
  const tx = await TransactionalAppender.create(kafka, { name: 'bench-produce', size: 4 });
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
  const brokers = (process.env.KAFKA_BROKERS ?? '127.0.0.1:9092').split(',');
  const results: Awaited<ReturnType<typeof once>>[] = [];
  const loads: number[] = [];
  for (let run = 0; run < runs; run++) {
    loads.push(load1m());
    const r = await once(brokers, n);
    results.push(r);
    console.error(
      `run ${run + 1}/${runs}: transactional ${r.txRate.toLocaleString('en-US')} records/s (CPU ${r.txCpu} ms/1k), idempotent ${r.pxRate.toLocaleString('en-US')} records/s (CPU ${r.pxCpu} ms/1k) (load ${loads[run]})`,
    );
  }
  const figures = {
    tx_records_per_s: median(results.map((r) => r.txRate)),
    idempotent_records_per_s: median(results.map((r) => r.pxRate)),
    tx_cpu_ms_per_1k: median(results.map((r) => r.txCpu)),
    idempotent_cpu_ms_per_1k: median(results.map((r) => r.pxCpu)),
  };
  report('produce', { records: n, runs, loads: loads.join(' '), ...figures }, Object.entries(figures));
}
