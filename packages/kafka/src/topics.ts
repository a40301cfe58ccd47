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
  const existing = new Set(await admin.listTopics());
  const missing = TOPICS.map((t) => topicName(prefix, t)).filter((t) => !existing.has(t));
  if (!missing.length) return;
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
