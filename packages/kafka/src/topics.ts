import type { KafkaAdmin } from './ports.js';
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
  admin: KafkaAdmin,
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
        await admin.createTopics(
          missing.map((topic) => ({
            topic,
            partitions,
            replicationFactor: replication.replicationFactor,
            configs: {
              'min.insync.replicas': String(replication.minInsyncReplicas),
              'retention.ms': '-1',
              'retention.bytes': '-1',
              'cleanup.policy': 'delete',
              'max.message.bytes': String(32 * 1024 * 1024),
            },
          })),
        );
      }
      await admin.topicPartitions(wanted);
      return;
    } catch (err) {
      if (attempt >= 20 || !isTransientTopicError(err)) throw err;
      await new Promise((r) => setTimeout(r, 100 * attempt));
    }
  }
}

const TRANSIENT = ['UNKNOWN_TOPIC_OR_PARTITION', 'TOPIC_ALREADY_EXISTS', 'LEADER_NOT_AVAILABLE'];

/** Whether a topic-creation failure is one of the moments KRaft needs (kafkajs or platformatic shape). */
function isTransientTopicError(err: unknown): boolean {
  const seen = new Set<unknown>();
  const walk = (e: unknown): boolean => {
    if (!e || typeof e !== 'object' || seen.has(e)) return false;
    seen.add(e);
    const o = e as {
      type?: unknown;
      apiId?: unknown;
      originalError?: unknown;
      errors?: unknown;
      cause?: unknown;
    };
    if (typeof o.type === 'string' && TRANSIENT.includes(o.type)) return true;
    if (typeof o.apiId === 'string' && TRANSIENT.includes(o.apiId)) return true;
    const nested = [o.originalError, o.cause, ...(Array.isArray(o.errors) ? (o.errors as unknown[]) : [])];
    return nested.some(walk);
  };
  return walk(err);
}
