import type { KafkaAdmin } from './ports.js';
import { TOPIC_RECORDS, type TopicName } from '@holdfast/contracts';
import { DEFAULT_RETENTION, type RetentionConfig, type TopicReplicationConfig } from '@holdfast/platform';

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

const DAY_MS = 86_400_000;

/**
 * The broker-side configuration a topic is created with. Every topic of the event log keeps its
 * records forever (`retention.ms` -1: the log is the source of truth); holdfast.dlq, which holds
 * whole copies of records no consumer could apply, keeps them `retention.deadLetterDays` days, like
 * read_models.dead_letters.
 *
 * @example
 * topicConfigs('holdfast.dlq', LOCAL_REPLICATION, { deadLetterDays: 30, pixelEventDays: 395 })['retention.ms']; // '2592000000'
 */
export function topicConfigs(
  topic: TopicName,
  replication: TopicReplicationConfig,
  retention: Pick<RetentionConfig, 'deadLetterDays'>,
): Record<string, string> {
  return {
    'min.insync.replicas': String(replication.minInsyncReplicas),
    'retention.ms': topic === 'holdfast.dlq' ? String(retention.deadLetterDays * DAY_MS) : '-1',
    'retention.bytes': '-1',
    'cleanup.policy': 'delete',
    'max.message.bytes': String(32 * 1024 * 1024),
  };
}

/**
 * Creates the topics that do not exist yet (configured by `topicConfigs`): infinite retention but for
 * holdfast.dlq (the log is the source of truth; dead letters are kept `retention.deadLetterDays`),
 * messages up to 32 MiB (one ingest batch), `replication` copies of which `min.insync.replicas` must
 * acknowledge a write (producers use acks=all, so with 3/2 a write survives the loss of a broker and
 * is refused rather than kept in one copy when two are down). Partitions, replication and retention are
 * fixed at creation (existing topics are not altered: docs/security.md "Retention" gives the
 * kafka-configs command that changes holdfast.dlq's retention); records are keyed by account id, so an account's
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
  retention: Pick<RetentionConfig, 'deadLetterDays'> = DEFAULT_RETENTION,
): Promise<void> {
  const logical = new Map(TOPICS.map((t) => [topicName(prefix, t), t]));
  const wanted = [...logical.keys()];
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
            configs: topicConfigs(logical.get(topic)!, replication, retention),
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
