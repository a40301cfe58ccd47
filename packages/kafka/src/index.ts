/**
 * Kafka plumbing: clients, topics, the transactional appender, the single-partition idempotent
 * appender, the exactly-once consumer runner with the shared poison policy (retry what is transient,
 * dead-letter what is permanent, crash on bugs), dead letters, consumer health and lag.
 */
export { createKafka } from './client.js';
export type * from './ports.js';
export { LOCAL_REPLICATION, TOPICS, ensureTopics, topicConfigs, topicName } from './topics.js';
export { TransactionalAppender, type Appender } from './appender.js';
export {
  IdempotentBatchAppender,
  MixedPartitionError,
  type IdempotentBatchAppenderOptions,
  type SinglePartitionAppender,
} from './batch-appender.js';
export { memoPartitionOf, murmur2, partitionOfKey } from './partitioner.js';
export { LogPositions, LogPositionTimeoutError, type LogPositionSource } from './log-position.js';
export * from './exactly-once-runner.js';
export * from './consumer-health.js';
export * from './consumer-lag.js';
export * from './consumer-policy.js';
export * from './dead-letters.js';
export * from './sync-command-sender.js';
export * from './probes.js';
export * from './service-kafka.js';
export { REQUEST_ID_HEADER, headerText, requestIdOfRecord } from './record-headers.js';
export { ensureTopicsOf, waitForLog, type LogSettings } from './wait-for-log.js';
