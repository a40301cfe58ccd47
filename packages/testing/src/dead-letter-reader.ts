import { randomUUID } from 'node:crypto';
import type { Kafka } from 'kafkajs';
import type { TestEnv } from './test-env.js';

/** A DeadLettered record as read back from `<prefix>holdfast.dlq`. */
export interface ReadDeadLetter {
  readonly projection: string;
  readonly topic: string;
  readonly partition: number;
  readonly offset: string;
  readonly reason: string;
}

/**
 * Reads the test env's holdfast.dlq topic from the beginning into `letters` until `close()`.
 *
 * @example
 * const dlq = await readDeadLetters(t);
 * await until(() => dlq.letters.length === 1);
 * await dlq.close();
 */
export async function readDeadLetters(
  t: TestEnv,
): Promise<{ readonly letters: ReadDeadLetter[]; close(): Promise<void> }> {
  const letters: ReadDeadLetter[] = [];
  const consumer = t.verifier.consumer({ groupId: `${t.topicPrefix}dlq-reader-${Date.now()}` });
  await consumer.connect();
  await consumer.subscribe({ topic: `${t.topicPrefix}holdfast.dlq`, fromBeginning: true });
  await consumer.run({
    eachMessage: async ({ message }) => {
      const e = await t.codec.decode(message.value!);
      if (e.type === 'DeadLettered') {
        const { projection, topic, partition, offset, reason } = e.value;
        letters.push({ projection, topic, partition, offset, reason });
      }
    },
  });
  return { letters, close: () => consumer.disconnect() };
}

/**
 * How many records a read_committed reader finds on a dead-letter topic (`<prefix>holdfast.dlq`),
 * read apart from the projector's dead-letter table: a letter announced on the topic but never
 * written to the table (or the other way round) is counted here. A topic whose offsets stay equal
 * (high = low on every partition) for `settleMs` holds none (the high offset read is the last stable
 * offset, which a just-committed transaction moves only once its markers are written). Otherwise its
 * records are read from the beginning until none arrived for `idleMs` (an aborted transaction's
 * records advance the offsets but are never read, so they are not counted).
 *
 * @example
 * expect(await countTopicRecords(t.verifier, `${t.topicPrefix}holdfast.dlq`)).toBe(0);
 */
export async function countTopicRecords(
  kafka: Kafka,
  topic: string,
  {
    idleMs = 3_000,
    maxMs = 30_000,
    settleMs = 3_000,
  }: { idleMs?: number; maxMs?: number; settleMs?: number } = {},
): Promise<number> {
  const admin = kafka.admin();
  await admin.connect();
  let offsets: { low: string; high: string }[];
  const empty = () => offsets.every((o) => o.high === o.low);
  try {
    offsets = await admin.fetchTopicOffsets(topic);
    // The high offsets are read_committed (the last stable offset): a transaction committed a moment
    // ago shows only once its coordinator has written the commit markers, so look again briefly
    // before calling the topic empty (the full suite met a 0 for two letters just published).
    for (const until = Date.now() + settleMs; empty() && Date.now() < until;) {
      await new Promise((r) => setTimeout(r, 200));
      offsets = await admin.fetchTopicOffsets(topic);
    }
  } finally {
    await admin.disconnect();
  }
  if (empty()) return 0;
  const consumer = kafka.consumer({ groupId: `count-${topic}-${randomUUID()}` });
  let n = 0;
  let last = Date.now();
  const started = Date.now();
  await consumer.connect();
  try {
    await consumer.subscribe({ topic, fromBeginning: true });
    await consumer.run({
      eachMessage: () => {
        n++;
        last = Date.now();
        return Promise.resolve();
      },
    });
    while (Date.now() - started < maxMs && (n === 0 || Date.now() - last < idleMs))
      await new Promise((r) => setTimeout(r, 200));
  } finally {
    await consumer.disconnect();
  }
  return n;
}
