import type { Admin } from 'kafkajs';
import { TOPIC_RECORDS, type TopicName } from '@holdfast/contracts';
import type { TopicReplicationConfig } from '@holdfast/platform';

/** One copy locally (a single broker); production uses 3 copies, 2 of which must acknowledge. */
export const LOCAL_REPLICATION: TopicReplicationConfig = Object.freeze({
  replicationFactor: 1,
  minInsyncReplicas: 1,
});

/** Every topic of the event log. */
export const TOPICS = Object.keys(TOPIC_RECORDS) as TopicName[];

/** The physical name of a topic under a prefix (tests and side-by-side stacks use one). */
export function topicName(prefix: string, topic: TopicName): string {
  return `${prefix}${topic}`;
}

/**
 * Creates the topics that do not exist yet: infinite retention (the log is the source of truth),
 * messages up to 32 MiB (one ingest batch), `replication` copies of which `min.insync.replicas` must
 * acknowledge a write (producers use acks=all, so with 3/2 a write survives the loss of a broker and
 * is refused rather than kept in one copy when two are down). Partitions and replication are fixed at
 * creation (existing topics are not altered); records are keyed by account id, so an account's
 * history stays on one partition and replays in order.
 *
 * @example
 * await ensureTopics(admin, '', 12, { replicationFactor: 3, minInsyncReplicas: 2 });
 */
export async function ensureTopics(
  admin: Admin,
  prefix: string,
  partitions: number,
  replication: TopicReplicationConfig = LOCAL_REPLICATION,
): Promise<void> {
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
            replicationFactor: replication.replicationFactor,
            configEntries: [
              { name: 'min.insync.replicas', value: String(replication.minInsyncReplicas) },
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
