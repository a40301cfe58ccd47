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
  const consumer = t.kafka.consumer({ groupId: `${t.topicPrefix}dlq-reader-${Date.now()}` });
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
