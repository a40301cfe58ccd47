// Test support: read a topic of the test file's prefix from the beginning, decoded.
import { randomUUID } from 'node:crypto';
import type { AnyEvent, TopicName } from '@holdfast/contracts';
import { topicName } from '@holdfast/kafka';
import {
  defaultPrivacyKeyring,
  openPersonal,
  PgSubjectKeyStore,
  SubjectKeyCache,
  type PersonalEvent,
} from '@holdfast/privacy';
import type { TestEnv } from '@holdfast/testing';

const PERSONAL = new Set([
  'OrderUpserted',
  'CustomerUpserted',
  'CustomerEventReceived',
  'ZeroPartySubmitted',
]);

/** `e` with its personal fields decrypted back into their clear fields (as the projector folds it). */
async function opened(keys: SubjectKeyCache, e: AnyEvent): Promise<AnyEvent> {
  if (!PERSONAL.has(e.type)) return e;
  const [o] = await openPersonal(keys, [e as PersonalEvent]);
  return { type: e.type, value: { ...o!.value, personal: null } } as AnyEvent;
}

/**
 * Consumes `topic` from offset 0 until `done(events)` holds, then stops. read_committed by default
 * (what every consumer of the log uses); `readUncommitted` shows records of aborted transactions too.
 * To prove that something is NOT visible, wait for a sentinel appended after it. Personal fields are
 * decrypted back in place (`personal` then null) unless `raw`.
 */
export async function readTopic(
  t: TestEnv,
  topic: TopicName,
  done: (events: readonly AnyEvent[]) => boolean,
  { readUncommitted = false, timeoutMs = 30_000, raw = false } = {},
): Promise<AnyEvent[]> {
  const consumer = t.verifier.consumer({
    groupId: `${t.topicPrefix}reader-${randomUUID()}`,
    readUncommitted,
    maxWaitTimeInMs: 100,
    sessionTimeout: 6_000,
    heartbeatInterval: 1_000,
  });
  const events: AnyEvent[] = [];
  const keys = new SubjectKeyCache(new PgSubjectKeyStore(t.pool, defaultPrivacyKeyring()));
  let resolve!: () => void;
  const finished = new Promise<void>((r) => (resolve = r));
  await consumer.connect();
  try {
    await consumer.subscribe({ topic: topicName(t.topicPrefix, topic), fromBeginning: true });
    await consumer.run({
      eachMessage: async ({ message }) => {
        if (!message.value) return;
        const e = await t.codec.decode(message.value);
        events.push(raw ? e : await opened(keys, e));
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
