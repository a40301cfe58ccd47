/**
 * Kafka plumbing: clients, topics, the transactional appender, the single-partition idempotent
 * appender and the exactly-once consumer runner.
 */
export { createKafka, kafkaSecurityOptions } from './client.js';
export { LOCAL_REPLICATION, TOPICS, ensureTopics, topicName } from './topics.js';
export { TransactionalAppender, type Appender, type OutgoingRecord } from './appender.js';
export {
  IdempotentBatchAppender,
  MixedPartitionError,
  type IdempotentBatchAppenderOptions,
  type SinglePartitionAppender,
} from './batch-appender.js';
export { memoKeyPartitioner } from './partitioner.js';
export { LogPositions, LogPositionTimeoutError, type LogPositionSource } from './log-position.js';
export * from './exactly-once-runner.js';
