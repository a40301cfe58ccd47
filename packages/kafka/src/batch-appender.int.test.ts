import { randomBytes, randomUUID } from 'node:crypto';
import { Kafka, logLevel, type Admin } from 'kafkajs';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { silentLogger } from '@holdfast/platform';
import { IdempotentBatchAppender, MixedPartitionError } from './batch-appender.js';
import { createKafka } from './client.js';
import type { KafkaClient } from './ports.js';

// The appender runs on the client under test (@holdfast/kafka); an independent kafkajs client
// creates the topics and reads back what was stored.
let kafka: KafkaClient;
let verifier: Kafka;
let admin: Admin;
let appender: IdempotentBatchAppender;
const prefix = `t-batchappender-${randomBytes(3).toString('hex')}-`;

async function topic(name: string, config: Record<string, string> = {}): Promise<string> {
  const t = `${prefix}${name}`;
  await admin.createTopics({
    waitForLeaders: true,
    topics: [
      {
        topic: t,
        numPartitions: 4,
        replicationFactor: 1,
        configEntries: Object.entries(config).map(([n, value]) => ({ name: n, value })),
      },
    ],
  });
  return t;
}

/** Records stored per partition (high watermark), summed: what any consumer could ever read. */
async function stored(t: string): Promise<number> {
  const offsets = await admin.fetchTopicOffsets(t);
  return offsets.reduce((s, o) => s + Number(o.high), 0);
}

interface Read {
  readonly partition: number;
  readonly offset: number;
  readonly value: string;
}

/** Reads `n` records of `t` from the beginning, read_committed (as the projector does). */
async function read(t: string, n: number): Promise<Read[]> {
  const consumer = verifier.consumer({ groupId: `${prefix}reader-${randomUUID()}`, maxWaitTimeInMs: 100 });
  const out: Read[] = [];
  await consumer.connect();
  try {
    await consumer.subscribe({ topic: t, fromBeginning: true });
    await new Promise<void>((resolve, reject) => {
      const timer = setTimeout(() => reject(new Error(`read ${n} of ${t}: timed out`)), 30_000);
      void consumer.run({
        eachMessage: ({ partition, message }) => {
          out.push({ partition, offset: Number(message.offset), value: message.value!.toString() });
          if (out.length >= n) {
            clearTimeout(timer);
            resolve();
          }
          return Promise.resolve();
        },
      });
    });
    return out;
  } finally {
    await consumer.disconnect();
  }
}

const records = (t: string, key: string, n: number, bytes = 20) =>
  Array.from({ length: n }, (_, i) => ({
    topic: t,
    key,
    value: Buffer.from(`${String(i).padStart(3, '0')}:${'x'.repeat(bytes)}`),
  }));

beforeAll(async () => {
  const brokers = process.env.KAFKA_BROKERS!.split(',');
  kafka = createKafka(brokers, 'test-batch-appender', silentLogger);
  verifier = new Kafka({ brokers, logLevel: logLevel.NOTHING });
  admin = verifier.admin();
  await admin.connect();
  appender = await IdempotentBatchAppender.create(kafka, { size: 2 });
});

afterAll(async () => {
  await appender?.close();
  const mine = (await admin.listTopics()).filter((t) => t.startsWith(prefix));
  if (mine.length) await admin.deleteTopics({ topics: mine }).catch(() => {});
  await admin?.disconnect();
});

describe('IdempotentBatchAppender', () => {
  it('given 50 records of one key, when appended, then they are stored once, on one partition, at consecutive offsets, in order', async () => {
    const t = await topic('one-key');
    await appender.append(records(t, 'account-1', 50));
    const got = await read(t, 50);
    expect(new Set(got.map((r) => r.partition)).size).toBe(1);
    const offsets = got.map((r) => r.offset);
    expect(offsets).toEqual(Array.from({ length: 50 }, (_, i) => offsets[0]! + i));
    expect(got.map((r) => r.value.slice(0, 3))).toEqual(
      Array.from({ length: 50 }, (_, i) => String(i).padStart(3, '0')),
    );
    expect(await stored(t)).toBe(50);
  });

  it('given records of two keys (or two topics), when appended, then MixedPartitionError and nothing is sent', async () => {
    const t = await topic('mixed');
    await expect(appender.append([...records(t, 'a', 2), ...records(t, 'b', 2)])).rejects.toThrow(
      MixedPartitionError,
    );
    const t2 = await topic('mixed-2');
    await expect(appender.append([...records(t, 'a', 1), ...records(t2, 'a', 1)])).rejects.toThrow(
      MixedPartitionError,
    );
    expect(await stored(t)).toBe(0);
    expect(await stored(t2)).toBe(0);
  });

  it('given a batch the broker refuses (over the topic max.message.bytes), when appended, then it fails, NONE of its records is stored, and the next call still succeeds', async () => {
    // 50 records of ~120 bytes make one ~7 KB record batch; the topic takes batches of 4 KB at most.
    // Had the records been split into several batches or requests, the first ones would be stored.
    const t = await topic('too-large', { 'max.message.bytes': '4096' });
    await expect(appender.append(records(t, 'account-2', 50, 100))).rejects.toThrow();
    expect(await stored(t)).toBe(0);
    // The producer that failed was retired; the pool still appends.
    await appender.append(records(t, 'account-2', 3));
    await appender.append(records(t, 'account-2', 3));
    expect(await stored(t)).toBe(6);
  });

  it('given many concurrent calls, when appended, then every record is stored exactly once', async () => {
    const t = await topic('concurrent');
    await Promise.all(
      Array.from({ length: 20 }, (_, i) => appender.append(records(t, `account-${i % 5}`, 10))),
    );
    expect(await stored(t)).toBe(200);
    const got = await read(t, 200);
    expect(new Set(got.map((r) => `${r.partition}:${r.offset}`)).size).toBe(200);
  });
});
