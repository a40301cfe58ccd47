// Test support: read a topic of the test file's prefix from the beginning, decoded.
import { randomUUID } from 'node:crypto';
import type { AnyEvent, TopicName } from '@holdfast/contracts';
import { topicName } from '@holdfast/kafka';
import type { TestEnv } from '@holdfast/testing';

/**
 * Consumes `topic` from offset 0 until `done(events)` holds, then stops. read_committed by default
 * (what every consumer of the log uses); `readUncommitted` shows records of aborted transactions too.
 * To prove that something is NOT visible, wait for a sentinel appended after it.
 */
export async function readTopic(
  t: TestEnv,
  topic: TopicName,
  done: (events: readonly AnyEvent[]) => boolean,
  { readUncommitted = false, timeoutMs = 30_000 } = {},
): Promise<AnyEvent[]> {
  const consumer = t.verifier.consumer({
    groupId: `${t.topicPrefix}reader-${randomUUID()}`,
    readUncommitted,
    maxWaitTimeInMs: 100,
    sessionTimeout: 6_000,
    heartbeatInterval: 1_000,
  });
  const events: AnyEvent[] = [];
  let resolve!: () => void;
  const finished = new Promise<void>((r) => (resolve = r));
  await consumer.connect();
  try {
    await consumer.subscribe({ topic: topicName(t.topicPrefix, topic), fromBeginning: true });
    await consumer.run({
      eachMessage: async ({ message }) => {
        if (!message.value) return;
        events.push(await t.codec.decode(message.value));
        if (done(events)) resolve();
      },
    });
    let timer: NodeJS.Timeout | undefined;
    const timeout = new Promise<void>((_, reject) => {
      timer = setTimeout(
        () => reject(new Error(`readTopic(${topic}): condition not met in ${timeoutMs} ms`)),
        timeoutMs,
      );
    });
    await Promise.race([finished, timeout]).finally(() => clearTimeout(timer));
    return events;
  } finally {
    await consumer.disconnect();
  }
}

/** The batch id carried by an event's metadata (every event the gateway appends has one). */
export function batchIdOf(e: AnyEvent): string | null {
  return 'metadata' in e.value ? e.value.metadata.batch_id : null;
}
