import type { Kafka } from 'kafkajs';
import type { EventCodec } from '@holdfast/contracts';
import type { Pool } from '@holdfast/db';
import {
  deadLetterOf,
  deadLetterReason,
  runExactlyOnce,
  topicName,
  type ConsumedRecord,
  type DeadLetterPublisher,
  type RunningConsumer,
} from '@holdfast/kafka';
import { PermanentError, silentLogger, type InfraConfig, type Logger } from '@holdfast/platform';
import { RECOMPUTE_SCHEMA, SyncTaskStore, type SyncTaskRef } from './sync-task-store.js';

export interface SyncConsumerConfig {
  readonly infra: InfraConfig;
  /** Schema of the projector's read models, where orders and customers are counted. */
  readonly readModelSchema: string;
  /** Consumer group; default `<topic prefix>recompute-sync`. */
  readonly groupId?: string;
  /** A running task started longer ago than this no longer blocks the account (default 1 hour). */
  readonly staleRunningMs?: number;
}

export interface SyncConsumerDeps {
  readonly pool: Pool;
  readonly kafka: Kafka;
  readonly codec: Pick<EventCodec, 'decode'>;
  readonly logger?: Logger;
  readonly now?: () => Date;
  /**
   * The recompute of one task, run while it is `running` (analytics plug scoring in here). Throwing
   * marks the task failed with the error's message as reason. Default: nothing.
   */
  readonly recompute?: (task: SyncTaskRef) => Promise<void>;
  /** Where unreadable commands are dead-lettered (holdfast.dlq); default: only logged. */
  readonly deadLetters?: DeadLetterPublisher;
}

const PROJECTION = 'sync-consumer';

/**
 * Consumes holdfast.sync-commands (read_committed, exactly-once checkpoints in schema `recompute`)
 * and moves each SyncRequested task queued → running → done (with counters) or failed; a task of an
 * account that already has a running task is skipped with reason `already_running`.
 *
 * @example
 * const consumer = await startSyncConsumer(config, { pool, kafka, codec, logger });
 * await consumer.stop();
 */
export async function startSyncConsumer(
  config: SyncConsumerConfig,
  deps: SyncConsumerDeps,
): Promise<RunningConsumer> {
  const logger = deps.logger ?? silentLogger;
  const now = deps.now ?? (() => new Date());
  const store = new SyncTaskStore(deps.pool, config.readModelSchema, config.staleRunningMs ?? 3_600_000);
  await store.ensureSchema();

  const handleRecord = async (r: ConsumedRecord): Promise<void> => {
    const key = {
      schema: RECOMPUTE_SCHEMA,
      projection: PROJECTION,
      topic: 'holdfast.sync-commands',
      partition: r.partition,
    };
    const offset = Number(r.offset);
    let task: SyncTaskRef;
    try {
      const event = await deps.codec.decode(r.value ?? Buffer.alloc(0));
      if (event.type !== 'SyncRequested') throw new PermanentError(`unexpected ${event.type}`);
      const v = event.value;
      task = {
        taskId: v.task_id,
        accountId: v.metadata.account_id,
        trigger: v.trigger,
        requestedAt: new Date(v.metadata.received_at),
      };
    } catch (err) {
      // The shared poison policy: a registry or database outage is rethrown (the runner retries the
      // chunk); a record that is not a sync command can never be run: dead-letter it and move on.
      const reason = deadLetterReason(err);
      await deps.deadLetters?.publish([
        deadLetterOf('recompute.sync-commands', 'holdfast.sync-commands', r, `undecodable: ${reason}`),
      ]);
      logger.error('sync_command_unreadable', {
        partition: r.partition,
        offset: r.offset,
        error: (err as Error).message,
      });
      await store.pass(key, offset);
      return;
    }
    const claim = await store.claim(key, offset, task, now());
    if (claim.kind === 'skipped')
      logger.info('sync_task_skipped', { task_id: task.taskId, reason: 'already_running' });
    if (claim.kind !== 'run') return;
    logger.info('sync_task_running', { task_id: task.taskId, account_id: task.accountId });
    try {
      await deps.recompute?.(task);
    } catch (err) {
      const reason = `recompute_failed: ${(err as Error).message}`;
      await store.failed(key, offset, task, reason, now());
      logger.error('sync_task_failed', { task_id: task.taskId, reason });
      return;
    }
    const counts = await store.done(key, offset, task, claim.startedAt, now());
    if (counts) logger.info('sync_task_done', { task_id: task.taskId, ...counts });
  };

  return runExactlyOnce({
    kafka: deps.kafka,
    groupId: config.groupId ?? `${config.infra.topicPrefix}recompute-sync`,
    topics: [topicName(config.infra.topicPrefix, 'holdfast.sync-commands')],
    logger,
    chunkSize: 100,
    handler: async ({ records }) => {
      // In order: tasks of one account are on one partition, so "already running" is decided in
      // the order the commands were issued.
      for (const r of records) await handleRecord(r);
      return { kind: 'applied' };
    },
  });
}
