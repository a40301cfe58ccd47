// The runner's share of the poison policy on the real broker: a transient failure is retried with
// backoff (the consumer reports not ready meanwhile, nothing is skipped); a bug crashes the consumer.
import { randomBytes } from 'node:crypto';
import { Kafka, logLevel, type Admin } from 'kafkajs';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { silentLogger } from '@holdfast/platform';
import { createKafka } from './client.js';
import { runExactlyOnce, type ConsumedRecord, type RunningConsumer } from './exactly-once-runner.js';
import type { KafkaClient } from './ports.js';

// The runner consumes through the client under test (@holdfast/kafka); an independent kafkajs
// client creates the topics and writes the records.
let kafka: KafkaClient;
let verifier: Kafka;
let admin: Admin;
const running: RunningConsumer[] = [];
const prefix = `t-runner-${randomBytes(3).toString('hex')}-`;

beforeAll(async () => {
  const brokers = process.env.KAFKA_BROKERS!.split(',');
  kafka = createKafka(brokers, 'runner-test', silentLogger);
  verifier = new Kafka({ brokers, logLevel: logLevel.NOTHING });
  admin = verifier.admin();
  await admin.connect();
});
afterAll(async () => {
  for (const r of running) await r.stop().catch(() => {});
  await admin.deleteTopics({ topics: [`${prefix}transient`, `${prefix}bug`] }).catch(() => {});
  await admin.disconnect();
});

async function topicWith(name: string, values: string[]): Promise<string> {
  const topic = `${prefix}${name}`;
  await admin.createTopics({
    waitForLeaders: true,
    topics: [{ topic, numPartitions: 1, replicationFactor: 1 }],
  });
  const producer = verifier.producer();
  await producer.connect();
  await producer.send({ topic, messages: values.map((value) => ({ key: 'k', value })) });
  await producer.disconnect();
  return topic;
}

const until = async (check: () => boolean, ms = 30_000) => {
  const deadline = Date.now() + ms;
  while (!check()) {
    if (Date.now() > deadline) throw new Error('timed out');
    await new Promise((r) => setTimeout(r, 50));
  }
};

describe('runExactlyOnce failure policy', () => {
  it('retries a chunk that fails transiently until it applies, not ready meanwhile, skipping nothing', async () => {
    const topic = await topicWith('transient', ['a', 'b', 'c']);
    const applied: string[] = [];
    let failures = 3;
    let notReady = '';
    const ref: { consumer?: RunningConsumer } = {};
    const consumer = (ref.consumer = await runExactlyOnce({
      kafka,
      groupId: `${prefix}transient`,
      topics: [topic],
      logger: silentLogger,
      sessionTimeoutMs: 6_000,
      retryBackoff: { baseMs: 100, maxMs: 200 },
      handler: ({ records }) => {
        // runExactlyOnce returns before the group is joined, so the handler always sees ref.consumer.
        if (failures-- > 0) {
          try {
            ref.consumer?.health.check(60_000);
          } catch (err) {
            notReady ||= (err as Error).message;
          }
          return Promise.reject(
            Object.assign(new Error('terminating connection due to administrator command'), {
              code: '57P01',
            }),
          );
        }
        applied.push(...records.map((r: ConsumedRecord) => r.value!.toString()));
        return Promise.resolve({ kind: 'applied' as const });
      },
    }));
    running.push(consumer);
    await until(() => applied.length === 3);
    expect(applied).toEqual(['a', 'b', 'c']);
    expect(notReady).toMatch(/retrying Error \(57P01\)/);
    expect(() => consumer.health.check(60_000)).not.toThrow();
  });

  it('crashes the consumer loudly on a bug instead of looping over or skipping the record', async () => {
    const topic = await topicWith('bug', ['x']);
    const consumer = await runExactlyOnce({
      kafka,
      groupId: `${prefix}bug`,
      topics: [topic],
      logger: silentLogger,
      sessionTimeoutMs: 6_000,
      handler: () => Promise.reject(new TypeError("Cannot read properties of undefined (reading 'x')")),
    });
    running.push(consumer);
    const err = await Promise.race([
      consumer.crashed,
      new Promise((_, reject) => setTimeout(() => reject(new Error('no crash')), 30_000)),
    ]);
    expect(err).toBeInstanceOf(TypeError);
  });
});
