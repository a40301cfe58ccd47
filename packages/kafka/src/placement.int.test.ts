import { randomBytes } from 'node:crypto';
import { Kafka, logLevel, type Admin } from 'kafkajs';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { silentLogger } from '@holdfast/platform';
import { until } from '@holdfast/testing';
import { TransactionalAppender } from './appender.js';
import { IdempotentBatchAppender } from './batch-appender.js';
import { createKafka } from './client.js';
import { partitionOfKey } from './partitioner.js';
import type { KafkaClient } from './ports.js';

// Where records land on a producer's FIRST send to a topic: @platformatic/kafka calls a custom
// partitioner before it has the topic's metadata, and such a send once put every record on
// partition 0. An independent kafkajs client creates the topics and reads the watermarks back.
const PARTITIONS = 6;
const KEYS = ['account-1', 'account-2', 'account-3', 'account-4', 'account-5', 'account-6', 'account-7'];
let kafka: KafkaClient;
let admin: Admin;
const prefix = `t-placement-${randomBytes(3).toString('hex')}-`;

async function topic(name: string): Promise<string> {
  const t = `${prefix}${name}`;
  await admin.createTopics({
    waitForLeaders: true,
    topics: [{ topic: t, numPartitions: PARTITIONS, replicationFactor: 1 }],
  });
  return t;
}

/** Records stored per partition (high watermarks). */
async function perPartition(t: string): Promise<number[]> {
  const offsets = await admin.fetchTopicOffsets(t);
  return offsets.sort((a, b) => a.partition - b.partition).map((o) => Number(o.high));
}

/**
 * What `perPartition` must be when each key's records sit on the Java partitioner's partition; a
 * committed transaction adds its marker (one offset) to each partition it wrote.
 */
function expected(counts: ReadonlyMap<string, number>, { transaction = false } = {}): number[] {
  const out = Array.from({ length: PARTITIONS }, () => 0);
  for (const [key, n] of counts) out[partitionOfKey(key, PARTITIONS)]! += n;
  return transaction ? out.map((n) => (n ? n + 1 : 0)) : out;
}

const recordsOf = (t: string, key: string, n: number) =>
  Array.from({ length: n }, (_, i) => ({ topic: t, key, value: Buffer.from(`${key}:${i}`) }));

beforeAll(async () => {
  const brokers = process.env.KAFKA_BROKERS!.split(',');
  kafka = createKafka(brokers, 'test-placement', silentLogger);
  admin = new Kafka({ brokers, logLevel: logLevel.NOTHING }).admin();
  await admin.connect();
});

afterAll(async () => {
  const mine = (await admin.listTopics()).filter((t) => t.startsWith(prefix));
  if (mine.length) await admin.deleteTopics({ topics: mine }).catch(() => {});
  await admin?.disconnect();
});

describe('record placement on a fresh producer', () => {
  it('given a fresh transactional appender, when its first transaction carries records of 7 keys, then each key lands on its Java-partitioner partition', async () => {
    const t = await topic('tx');
    const appender = await TransactionalAppender.create(kafka, { name: `${prefix}tx`, size: 1 });
    try {
      await appender.append(KEYS.flatMap((k, i) => recordsOf(t, k, i + 1)));
    } finally {
      await appender.close();
    }
    const want = expected(new Map(KEYS.map((k, i) => [k, i + 1])), { transaction: true });
    // The watermarks read here are read_committed (kafkajs's admin): the coordinator answers the
    // commit before it writes the markers, so until they are written every partition reads 0 (seen
    // under load). Waiting for the total keeps where the records landed for the assertion.
    const total = want.reduce((a, b) => a + b, 0);
    const got = await until(
      'the commit markers',
      () => perPartition(t),
      (p) => p.reduce((a, b) => a + b, 0) >= total,
      10_000,
    );
    expect(got).toEqual(want);
  });

  it('given fresh idempotent producers, when each first send carries one key, then each key lands on its Java-partitioner partition', async () => {
    const t = await topic('idempotent');
    for (const [i, k] of KEYS.entries()) {
      const appender = await IdempotentBatchAppender.create(kafka, { size: 1 });
      try {
        await appender.append(recordsOf(t, k, i + 1));
      } finally {
        await appender.close();
      }
    }
    expect(await perPartition(t)).toEqual(expected(new Map(KEYS.map((k, i) => [k, i + 1]))));
  });
});
