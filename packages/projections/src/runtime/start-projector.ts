import type { EventCodec } from '@holdfast/contracts';
import type { Pool } from '@holdfast/postgres';
import type { SecretsKeyring } from '@holdfast/secrets';
import {
  TransactionalAppender,
  consumerLag,
  runExactlyOnce,
  topicName,
  type BatchHandler,
  type BatchOutcome,
  type ConsumerHealth,
  type LagSource,
  type GroupConsumer,
  type KafkaClient,
} from '@holdfast/kafka';
import type { Logger } from '@holdfast/platform';
import type { WiredProjection } from '../projection.js';
import type { MemoryBudget } from '../projections/commerce/identity-memory.js';
import { selectWiredProjections } from '../projections/index.js';
import { ensureReadModelSchema } from '@holdfast/read-models';
import { kafkaDeadLetterPublisher, type DeadLetterPublisher } from './dead-letters.js';
import type { ProjectorMetrics } from './metrics.js';
import { ProjectionRunner } from './projection-runner.js';

/** What to run. */
export interface ProjectorConfig {
  /** Prefix of every topic name (tests and side-by-side stacks use one; production ''). */
  readonly topicPrefix: string;
  /** Schema the read models live in (HOLDFAST_READ_SCHEMA, default read_models). */
  readonly readSchema: string;
  /** Names of the projections to run; all when omitted. */
  readonly projections?: readonly string[];
  /**
   * The commerce projection's identity memory of this projector (HOLDFAST_PROJECTOR_MEMORY_*; 0
   * customers turns it off). Default: DEFAULT_MEMORY_BUDGET. Each projector has its own.
   */
  readonly memoryBudget?: MemoryBudget;
  /** The KEK ring personal data is decrypted under (default: HOLDFAST_PRIVACY_KEYS of the process). */
  readonly privacyKeyring?: SecretsKeyring;
  /** Records per transaction (default 5,000). */
  readonly chunkSize?: number;
  /** Consumer group (default `<prefix>holdfast.projector`); a rebuild uses a fresh one. */
  readonly groupId?: string;
  readonly sessionTimeoutMs?: number;
  /** Not joined nor fetching longer than this recreates the consumer (HOLDFAST_CONSUMER_STALL_MS). */
  readonly stallMs?: number;
  /** Identical failures of a chunk's own before its records at fault are dead-lettered (HOLDFAST_RETRY_BUDGET). */
  readonly retryBudget?: number;
  /**
   * How often to compare checkpoints with what this process wrote (ms; 0 = never). A rebuild switched
   * in behind the live position is then re-applied even on partitions that receive no new record.
   * Default 2,000.
   */
  readonly checkpointWatchMs?: number;
  /** Create missing tables without the readers' indexes (a rebuild builds them after its bulk phase). */
  readonly deferIndexes?: boolean;
  /** Told the outcome of every partition batch (a rebuild tracks its progress with it). */
  readonly onOutcome?: (topic: string, partition: number, outcome: BatchOutcome) => void;
  /** Told every group consumer started (the first, and one recreated after a stall). */
  readonly onConsumer?: (consumer: GroupConsumer) => void;
}

/** The clients it works through (owned by the caller, except the dead-letter producer it creates). */
export interface ProjectorDeps {
  readonly pool: Pool;
  readonly kafka: KafkaClient;
  readonly codec: EventCodec;
  readonly logger: Logger;
  readonly metrics?: ProjectorMetrics;
  /** Counts what used up its retry budget, by component (`retryBudgetCounter`). */
  readonly onRetryBudgetExhausted?: (component: string) => void;
  /** Where dead letters are announced; default: the holdfast.dlq topic. */
  readonly publisher?: DeadLetterPublisher;
}

export interface RunningProjector {
  readonly groupId: string;
  readonly consumer: GroupConsumer;
  /** Joined, retrying, stuck: for /readyz. */
  readonly health: ConsumerHealth;
  /** The group's lag per partition (asked at scrape time). */
  readonly lag: LagSource & { readonly groupId: string };
  /** Resolves if the consumer stops for good (the client gave up, or a bug); exit non-zero. */
  readonly crashed: Promise<Error>;
  stop(): Promise<void>;
}

/**
 * Starts folding the log into the read models: ensures the schema, then consumes every topic of the
 * selected projections in one consumer group and hands each partition chunk to its projections.
 *
 * @example
 * const projector = await startProjector(
 *   { topicPrefix: '', readSchema: 'read_models' },
 *   { pool, kafka, codec, logger },
 * );
 * process.on('SIGTERM', () => void projector.stop());
 */
export async function startProjector(
  config: ProjectorConfig,
  deps: ProjectorDeps,
): Promise<RunningProjector> {
  const { kafka, codec } = deps;
  await ensureReadModelSchema(deps.pool, config.readSchema, { deferIndexes: config.deferIndexes ?? false });
  const projections = selectWiredProjections(config.projections, {
    memoryBudget: config.memoryBudget,
    privacyKeyring: config.privacyKeyring,
  });
  let appender: TransactionalAppender | undefined;
  const publisher =
    deps.publisher ??
    kafkaDeadLetterPublisher(
      (appender = await TransactionalAppender.create(kafka, {
        name: `${config.topicPrefix}holdfast.projector.dlq`,
        size: 1,
      })),
      codec,
      config.topicPrefix,
    );
  try {
    return await startConsuming(config, deps, projections, publisher, appender);
  } catch (err) {
    // Start-up is retried by the caller while a dependency is away: leave nothing open behind.
    await appender?.close().catch(() => {});
    throw err;
  }
}

async function startConsuming(
  config: ProjectorConfig,
  deps: ProjectorDeps,
  projections: readonly WiredProjection[],
  publisher: DeadLetterPublisher,
  appender: TransactionalAppender | undefined,
): Promise<RunningProjector> {
  const { kafka, codec, logger, metrics } = deps;
  const byTopic = new Map<string, ProjectionRunner[]>();
  for (const { projection, lookahead } of projections) {
    const topic = topicName(config.topicPrefix, projection.topic);
    const runner = new ProjectionRunner(
      projection,
      { pool: deps.pool, codec, schema: config.readSchema, logger, publisher, metrics },
      { lookahead },
    );
    byTopic.set(topic, [...(byTopic.get(topic) ?? []), runner]);
  }
  // Several projections may read one topic: each applies the batch under its own checkpoint, and a
  // rewind goes to the earliest offset any of them asks for (the others skip what they hold).
  const handler: BatchHandler = async (batch) => {
    let seek: string | undefined;
    for (const runner of byTopic.get(batch.topic) ?? []) {
      const outcome: BatchOutcome = await runner.handle(batch);
      if (outcome.kind === 'seek' && (seek === undefined || Number(outcome.offset) < Number(seek)))
        seek = outcome.offset;
    }
    const outcome: BatchOutcome = seek === undefined ? { kind: 'applied' } : { kind: 'seek', offset: seek };
    config.onOutcome?.(batch.topic, batch.partition, outcome);
    return outcome;
  };
  const groupId = config.groupId ?? `${config.topicPrefix}holdfast.projector`;
  const topics = [...byTopic.keys()];
  const running = await runExactlyOnce({
    kafka,
    groupId,
    topics,
    handler,
    logger,
    chunkSize: config.chunkSize ?? 5000,
    fromBeginning: true,
    sessionTimeoutMs: config.sessionTimeoutMs,
    stallMs: config.stallMs,
    onConsumer: config.onConsumer,
    retryBudget: config.retryBudget,
    onRetryBudgetExhausted: () => deps.onRetryBudgetExhausted?.('projector'),
  });
  const watchMs = config.checkpointWatchMs ?? 2000;
  let watching = false;
  const watch = watchMs
    ? setInterval(() => {
        if (watching) return;
        watching = true;
        void reconcile()
          .catch((err: Error) => logger.warn('checkpoint_watch_failed', { error: err.message }))
          .finally(() => (watching = false));
      }, watchMs)
    : undefined;
  const reconcile = async () => {
    for (const [topic, runners] of byTopic)
      for (const runner of runners)
        for (const { partition, offset } of await runner.reconcile()) {
          logger.warn('checkpoint_moved_rewinding', {
            projection: runner.projection.name,
            topic,
            partition,
            offset,
          });
          running.consumer.seek(topic, partition, String(offset));
        }
  };
  const lag = consumerLag(kafka, groupId, topics);
  metrics?.addLagSource(lag);
  logger.info('projector_started', {
    groupId,
    schema: config.readSchema,
    projections: projections.map((p) => p.projection.name),
  });
  return {
    groupId,
    get consumer() {
      return running.consumer;
    },
    health: running.health,
    lag,
    crashed: running.crashed,
    stop: async () => {
      clearInterval(watch);
      await running.stop();
      await lag.close();
      await appender?.close();
    },
  };
}
