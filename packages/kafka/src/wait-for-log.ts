import { EventCodec } from '@holdfast/contracts';
import { waitFor, type InfraConfig, type WaitForOptions } from '@holdfast/platform';
import type { KafkaClient } from './ports.js';
import { ensureTopics } from './topics.js';

/** What reaching the log needs: the topics to ensure and the registry to connect to. */
export type LogSettings = Pick<
  InfraConfig,
  'topicPrefix' | 'partitions' | 'topicReplication' | 'schemaRegistryUrl' | 'registryAuth' | 'retention'
>;

/** Creates the topics that are missing (`ensureTopics`) through a short-lived admin client. */
export async function ensureTopicsOf(kafka: KafkaClient, s: LogSettings): Promise<void> {
  const admin = kafka.admin();
  await admin.connect();
  try {
    await ensureTopics(admin, s.topicPrefix, s.partitions, s.topicReplication, s.retention);
  } finally {
    await admin.disconnect();
  }
}

/**
 * The start-up every service shares: waits (`waitFor`: retriable failures retried with backoff) until
 * Kafka answers and every topic exists, then until the schema registry answers, and returns its codec.
 * `phase` tells the readiness probe which wait is under way.
 *
 * @example
 * const codec = await waitForLog(kafka, infra, { logger, signal }, (p) => readiness.phase(p));
 */
export async function waitForLog(
  kafka: KafkaClient,
  s: LogSettings,
  wait: WaitForOptions,
  phase: (text: string) => void = () => {},
): Promise<EventCodec> {
  phase('waiting for kafka');
  await waitFor('kafka', () => ensureTopicsOf(kafka, s), wait);
  phase('waiting for the schema registry');
  return waitFor('registry', () => EventCodec.connect(s.schemaRegistryUrl, { auth: s.registryAuth }), wait);
}
