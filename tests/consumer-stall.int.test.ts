// The consumer stall watchdog (packages/kafka, consumer-watchdog.ts) on a PRIVATE broker that the
// test SIGKILLs and restarts (never the shared one): after a broker restart the consumer resumes
// within the stall bound; a client consumer that stops fetching without crashing (what kafkajs was
// seen to do after a broker restart) is recreated; and one that cannot be recreated ends in
// `crashed`, so the process exits and its supervisor restarts it. Runs with the client under test
// (@holdfast/kafka).
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createKafka, runExactlyOnce, type KafkaClient, type RunningConsumer } from '@holdfast/kafka';
import { silentLogger, type Logger } from '@holdfast/platform';
import { PrivateBroker } from '../bench/faults.js';

const STALL_MS = 10_000;
let broker: PrivateBroker;
let kafka: KafkaClient;
const running: RunningConsumer[] = [];
const events: string[] = [];
const logger: Logger = {
  ...silentLogger,
  error: (event) => void events.push(event),
  warn: (event) => void events.push(event),
  child: () => logger,
};

beforeAll(async () => {
  // 19150-19151: fixed ports outside every other test's and the ephemeral range; a fixed port lets
  // the restarted broker come back where the clients look for it.
  broker = await PrivateBroker.start(() => {}, 19_150);
  kafka = createKafka([broker.brokers], 'stall-test', silentLogger);
});
afterAll(async () => {
  for (const r of running) await r.stop().catch(() => {});
  await broker?.close();
});

async function topicWith(topic: string): Promise<void> {
  const admin = kafka.admin();
  await admin.connect();
  await admin.createTopics([{ topic, partitions: 2, replicationFactor: 1, configs: {} }]);
  await admin.disconnect();
}

async function send(topic: string, value: string): Promise<void> {
  // Retried here: right after the broker's restart a client may still fail on its first requests.
  for (let attempt = 1; ; attempt++) {
    try {
      const producer = await kafka.idempotentProducer();
      try {
        await producer.send([{ topic, key: value, value: Buffer.from(value) }], 10_000);
      } finally {
        await producer.close().catch(() => {});
      }
      return;
    } catch (err) {
      if (attempt >= 30) throw err;
      await new Promise((r) => setTimeout(r, 1_000));
    }
  }
}

async function consume(topic: string): Promise<{ consumer: RunningConsumer; seen: string[] }> {
  const seen: string[] = [];
  const consumer = await runExactlyOnce({
    kafka,
    groupId: `${topic}-group`,
    topics: [topic],
    logger,
    sessionTimeoutMs: 6_000,
    stallMs: STALL_MS,
    handler: ({ records }) => {
      seen.push(...records.map((r) => r.value!.toString()));
      return Promise.resolve({ kind: 'applied' as const });
    },
  });
  running.push(consumer);
  return { consumer, seen };
}

async function until(what: string, check: () => boolean, ms: number): Promise<number> {
  const started = Date.now();
  while (!check()) {
    if (Date.now() - started > ms) throw new Error(`${what}: not within ${ms} ms`);
    await new Promise((r) => setTimeout(r, 100));
  }
  return Date.now() - started;
}

const notCrashed = (c: RunningConsumer) =>
  Promise.race([c.crashed.then((e) => e.message), new Promise((r) => setTimeout(() => r('alive'), 10))]);

describe('a consumer after its broker was SIGKILLed and restarted', () => {
  it(
    'consumes again within the stall bound, the process never told to exit',
    { timeout: 300_000 },
    async () => {
      const topic = 'stall-restart';
      await topicWith(topic);
      const { consumer, seen } = await consume(topic);
      await send(topic, 'before');
      await until('first record', () => seen.includes('before'), 60_000);

      await broker.kill();
      // Long enough for the client's requests to fail and the consumer to crash with restart: true
      // (the service's `kafka` readiness check reports the broker meanwhile).
      await new Promise((r) => setTimeout(r, 8_000));
      await broker.restart();
      const back = Date.now();
      await send(topic, 'after');
      await until('record after the restart', () => seen.includes('after'), STALL_MS + 60_000);
      const resumedS = (Date.now() - back) / 1000;
      console.log(`consumed again ${resumedS.toFixed(1)} s after the broker's return`);
      expect(resumedS).toBeLessThanOrEqual(STALL_MS / 1000 + 20);
      await until(
        'ready',
        () => {
          try {
            consumer.health.check(120_000);
            return true;
          } catch {
            return false;
          }
        },
        30_000,
      );
      expect(await notCrashed(consumer)).toBe('alive');
    },
  );
});

describe('a client consumer that stops fetching without crashing', () => {
  it(
    'is reported not ready and recreated within the bound; the new one consumes',
    { timeout: 180_000 },
    async () => {
      const topic = 'stall-wedged';
      await topicWith(topic);
      const { consumer, seen } = await consume(topic);
      await send(topic, 'one');
      await until('first record', () => seen.includes('one'), 60_000);
      const first = consumer.consumer;
      // Stop the client underneath the runner: no crash, no fetch, the process up (the failure seen).
      await first.stop();
      await send(topic, 'two');
      await until(
        'not ready',
        () => {
          try {
            consumer.health.check(120_000);
            return false;
          } catch (err) {
            return /not joined|not fetching/.test((err as Error).message);
          }
        },
        5_000,
      );
      const took = await until('recreated', () => seen.includes('two'), 2 * STALL_MS + 30_000);
      expect(took).toBeGreaterThanOrEqual(STALL_MS - 1_000);
      expect(consumer.consumer).not.toBe(first);
      expect(events).toContain('consumer_stalled');
      expect(events).toContain('consumer_recreated');
      expect(await notCrashed(consumer)).toBe('alive');
    },
  );

  it(
    'ends in `crashed` (the process exits) when the recreated one stalls again',
    { timeout: 180_000 },
    async () => {
      const topic = 'stall-again';
      await topicWith(topic);
      const { consumer, seen } = await consume(topic);
      await send(topic, 'x');
      await until('first record', () => seen.includes('x'), 60_000);
      const first = consumer.consumer;
      await first.stop();
      await until('recreated', () => consumer.consumer !== first, 2 * STALL_MS + 30_000);
      await consumer.consumer.stop();
      const err = await Promise.race([
        consumer.crashed,
        new Promise<Error>((_, reject) =>
          setTimeout(() => reject(new Error('no crash')), 2 * STALL_MS + 30_000),
        ),
      ]);
      expect(err.name).toBe('ConsumerStalledError');
      expect(err.message).toBe('stall-again-group: stalled again after being recreated');
    },
  );
});
