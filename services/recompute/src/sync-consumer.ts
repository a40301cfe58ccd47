import type { EventCodec } from '@holdfast/contracts';
import type { Pool } from '@holdfast/postgres';
import {
  deadLetterOf,
  deadLetterReason,
  requestIdOfRecord,
  runExactlyOnce,
  topicName,
  type ConsumedRecord,
  type DeadLetterPublisher,
  type RunningConsumer,
  type KafkaClient,
} from '@holdfast/kafka';
import {
  countsAgainstRetryBudget,
  PermanentError,
  silentLogger,
  type InfraConfig,
  type Logger,
} from '@holdfast/platform';
import { projectorPositionReader } from './read-barrier.js';
import { RECOMPUTE_SCHEMA, SyncTaskStore, type SyncTaskRef } from './sync-task-store.js';
import {
  DEFAULT_WORKER_SETTINGS,
  startTaskWorker,
  type RecomputeTask,
  type TaskWorkerSettings,
} from './task-worker.js';

export interface SyncConsumerConfig {
  readonly infra: InfraConfig;
  /** Schema of the projector's read models, where orders and customers are counted. */
  readonly readModelSchema: string;
  /** Consumer group; default `<topic prefix>recompute-sync`. */
  readonly groupId?: string;
  /** The projector's consumer group, whose position tells barriers apart; default `<prefix>holdfast.projector`. */
  readonly projectorGroupId?: string;
  /** A running task without a work row (from before the task worker) blocks its account this long (default 1 hour). */
  readonly staleRunningMs?: number;
  /** The task worker's lease, poll, barrier timeout and retry bound (defaults: DEFAULT_WORKER_SETTINGS). */
  readonly worker?: Partial<TaskWorkerSettings>;
  /** Not joined nor fetching longer than this recreates the consumer (HOLDFAST_CONSUMER_STALL_MS). */
  readonly stallMs?: number;
  /** Identical failures of their own before a command is dead-lettered or a task failed (HOLDFAST_RETRY_BUDGET). */
  readonly retryBudget?: number;
}

export interface SyncConsumerDeps {
  readonly pool: Pool;
  readonly kafka: KafkaClient;
  readonly codec: Pick<EventCodec, 'decode'>;
  readonly logger?: Logger;
  readonly now?: () => Date;
  /**
   * The recompute of one task, run while it is `running` (analytics plug scoring in here). Throwing
   * marks the task failed with the error's message as reason; returning the scored snapshot's counts
   * makes them the task's counters. Default: nothing.
   */
  readonly recompute?: RecomputeTask;
  /** Where unreadable commands are dead-lettered (holdfast.dlq); default: only logged. */
  readonly deadLetters?: DeadLetterPublisher;
  /** Counts what used up its retry budget, by component (`retryBudgetCounter`). */
  readonly onRetryBudgetExhausted?: (component: string) => void;
}

const PROJECTION = 'sync-consumer';

/**
 * The sync side of the recompute service: a consumer of holdfast.sync-commands (read_committed,
 * exactly-once checkpoints in schema `recompute`) that only **records** each SyncRequested (its task
 * and work rows, idempotent on the task id), and a task worker that runs what was recorded: it waits
 * for the command's barrier, then moves the task queued → running → done (with counters) or failed, or
 * skips it (`already_running`). The consumer's callback takes milliseconds whatever the recompute
 * costs, so a long recompute never costs the consumer its group membership, and a command delivered
 * twice is recorded (and run) once.
 *
 * @example
 * const consumer = await startSyncConsumer(config, { pool, kafka, codec, logger, recompute });
 * await consumer.stop(); // stops the consumer, then waits for the task in hand
 */
export async function startSyncConsumer(
  config: SyncConsumerConfig,
  deps: SyncConsumerDeps,
): Promise<RunningConsumer> {
  const logger = deps.logger ?? silentLogger;
  const store = new SyncTaskStore(deps.pool, config.readModelSchema, config.staleRunningMs ?? 3_600_000);
  const barrier = projectorPositionReader({
    pool: deps.pool,
    kafka: deps.kafka,
    readModelSchema: config.readModelSchema,
    topicPrefix: config.infra.topicPrefix,
    projectorGroupId: config.projectorGroupId ?? `${config.infra.topicPrefix}holdfast.projector`,
  });
  const worker = startTaskWorker(
    {
      ...DEFAULT_WORKER_SETTINGS,
      ...(config.retryBudget ? { retryBudget: config.retryBudget } : {}),
      ...config.worker,
    },
    {
      store,
      barrier,
      recompute: deps.recompute ?? (() => Promise.resolve()),
      logger,
      now: deps.now,
      onRetryBudgetExhausted: () => deps.onRetryBudgetExhausted?.('recompute.task-worker'),
    },
  );

  const handleRecord = async (r: ConsumedRecord, exhausted?: string): Promise<void> => {
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
        barrier: v.barrier ?? null,
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
        request_id: requestIdOfRecord(r) ?? null,
        error: (err as Error).message,
      });
      await store.pass(key, offset);
      return;
    }
    let recorded: boolean;
    try {
      recorded = await store.record(key, offset, task);
    } catch (err) {
      if (!exhausted || !countsAgainstRetryBudget(err)) throw err;
      // The same failure of its own, again and again: dead-letter the command and move on.
      await deps.deadLetters?.publish([
        deadLetterOf('recompute.sync-commands', 'holdfast.sync-commands', r, exhausted),
      ]);
      logger.error('sync_command_dead_lettered', { task_id: task.taskId, reason: exhausted });
      await store.pass(key, offset);
      return;
    }
    if (recorded) {
      logger.info('sync_task_recorded', {
        task_id: task.taskId,
        account_id: task.accountId,
        request_id: requestIdOfRecord(r) ?? null,
      });
      worker.wake();
    }
  };

  let running: RunningConsumer;
  try {
    running = await runExactlyOnce({
      kafka: deps.kafka,
      groupId: config.groupId ?? `${config.infra.topicPrefix}recompute-sync`,
      topics: [topicName(config.infra.topicPrefix, 'holdfast.sync-commands')],
      logger,
      chunkSize: 100,
      // The recompute runs in this process and blocks its event loop while it fits a model (seconds
      // for a million customers): a longer session keeps the heartbeats that wait meanwhile in time.
      sessionTimeoutMs: 30_000,
      stallMs: config.stallMs,
      retryBudget: config.retryBudget,
      onRetryBudgetExhausted: () => deps.onRetryBudgetExhausted?.('recompute.sync-consumer'),
      handler: async ({ records, retryBudgetExhausted }) => {
        for (const r of records) await handleRecord(r, retryBudgetExhausted);
        return { kind: 'applied' };
      },
    });
  } catch (err) {
    await worker.stop();
    await barrier.close();
    throw err;
  }
  return {
    ...running,
    stop: async () => {
      await running.stop();
      await worker.stop();
      await barrier.close();
    },
  };
}
