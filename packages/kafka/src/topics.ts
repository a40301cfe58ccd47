import type { Admin } from 'kafkajs';
import { TOPIC_RECORDS, type TopicName } from '@holdfast/contracts';

/** Every topic of the event log. */
export const TOPICS = Object.keys(TOPIC_RECORDS) as TopicName[];

/** The physical name of a topic under a prefix (tests and side-by-side stacks use one). */
export function topicName(prefix: string, topic: TopicName): string {
  return `${prefix}${topic}`;
}

/**
 * Creates the topics that do not exist yet: infinite retention (the log is the source of truth),
 * messages up to 32 MiB (one ingest batch). Partitions are fixed at creation; records are keyed by
 * account id, so an account's history stays on one partition and replays in order.
 */
export async function ensureTopics(admin: Admin, prefix: string, partitions: number): Promise<void> {
  const wanted = TOPICS.map((t) => topicName(prefix, t));
  // KRaft answers "This server does not host this topic-partition" for a moment after a topic is
  // created (and when several processes create topics at once); such answers are retried.
  for (let attempt = 1; ; attempt++) {
    try {
      const existing = new Set(await admin.listTopics());
      const missing = wanted.filter((t) => !existing.has(t));
      if (missing.length) {
        await admin.createTopics({
          waitForLeaders: true,
          topics: missing.map((topic) => ({
            topic,
            numPartitions: partitions,
            replicationFactor: 1,
            configEntries: [
              { name: 'retention.ms', value: '-1' },
              { name: 'retention.bytes', value: '-1' },
              { name: 'cleanup.policy', value: 'delete' },
              { name: 'max.message.bytes', value: String(32 * 1024 * 1024) },
            ],
          })),
        });
      }
      await admin.fetchTopicMetadata({ topics: wanted });
      return;
    } catch (err) {
      const e = err as { type?: string; originalError?: { type?: string } };
      const type = e.type ?? e.originalError?.type;
      const transient = ['UNKNOWN_TOPIC_OR_PARTITION', 'TOPIC_ALREADY_EXISTS', 'LEADER_NOT_AVAILABLE'];
      if (attempt >= 20 || !transient.includes(type ?? '')) throw err;
      await new Promise((r) => setTimeout(r, 100 * attempt));
    }
  }
}
