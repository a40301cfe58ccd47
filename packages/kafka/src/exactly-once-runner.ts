import type { Consumer, Kafka } from 'kafkajs';
import {
  backoffDelay,
  classifyError,
  describeFailure,
  type BackoffOptions,
  type Logger,
} from '@holdfast/platform';
import { ConsumerHealth } from './consumer-health.js';

/** A record as consumed: physical topic, partition, offset (string: int64), raw key and value. */
export interface ConsumedRecord {
  readonly topic: string;
  readonly partition: number;
  readonly offset: string;
  readonly key: Buffer | null;
  readonly value: Buffer | null;
  readonly timestamp: string;
}

/** Records of one partition, in offset order. */
export interface PartitionBatch {
  readonly topic: string;
  readonly partition: number;
  readonly records: readonly ConsumedRecord[];
  /**
   * The records the handler will most likely be given next (the following chunk of the same fetch),
   * so it can prepare them while the database works on this one. A hint only: what comes next may
   * differ (a seek, a rebalance), and the handler must check.
   */
  readonly upcoming?: readonly ConsumedRecord[];
}

/**
 * What a handler reports after applying a batch. `seekTo` asks the runner to rewind the partition
 * (the handler found a gap between its checkpoint and the first record, e.g. after a schema switch).
 */
export type BatchOutcome = { readonly kind: 'applied' } | { readonly kind: 'seek'; readonly offset: string };

/**
 * Applies a batch atomically together with its checkpoint and skips what it has already applied.
 * Kafka offsets are committed only after it returns, and only as an optimisation: the checkpoint in
 * the same database transaction is what makes the effect exactly-once.
 *
 * Failures follow the shared poison policy (see `deadLetterReason`): a handler dead-letters the
 * records that fail permanently itself and throws only for the rest. A retriable failure thrown out
 * of it (a dependency away) makes the runner retry the same chunk with backoff and jitter, for as
 * long as it takes, while the consumer reports not ready; anything else crashes the consumer.
 */
export type BatchHandler = (batch: PartitionBatch) => Promise<BatchOutcome>;

export interface RunnerOptions {
  readonly kafka: Kafka;
  readonly groupId: string;
  readonly topics: readonly string[];
  readonly handler: BatchHandler;
  readonly logger: Logger;
  /** Records per handler call (one database transaction). */
  readonly chunkSize?: number;
  readonly fromBeginning?: boolean;
  /** Called with the lag (high watermark − next offset) of each partition after every chunk. */
  readonly onLag?: (topic: string, partition: number, lag: number) => void;
  /** How long a dead member holds its partitions before a rebalance (the broker's minimum is 6 s). */
  readonly sessionTimeoutMs?: number;
  /** Waits between retries of a chunk that failed transiently (default 200 ms doubling to 10 s). */
  readonly retryBackoff?: BackoffOptions;
}

export interface RunningConsumer {
  readonly consumer: Consumer;
  readonly groupId: string;
  /** Joined, retrying, stuck: what /readyz asks (`health.check(stuckMs)`). */
  readonly health: ConsumerHealth;
  stop(): Promise<void>;
  /**
   * Resolves when the consumer stops for good: kafkajs gave up, or the handler failed with a bug (or
   * a permanent failure it did not dead-letter). The process should exit non-zero, loudly.
   */
  readonly crashed: Promise<Error>;
}

/** Consumes `topics` read_committed and hands partition batches to `handler`, chunk by chunk. */
export async function runExactlyOnce(opts: RunnerOptions): Promise<RunningConsumer> {
  const { kafka, groupId, topics, handler, logger, chunkSize = 5000, fromBeginning = true, onLag } = opts;
  const sessionTimeout = opts.sessionTimeoutMs ?? 10_000;
  const heartbeatInterval = Math.max(500, Math.floor(sessionTimeout / 6));
  const consumer = kafka.consumer({
    groupId,
    readUncommitted: false,
    maxBytesPerPartition: 16 * 1024 * 1024,
    maxBytes: 64 * 1024 * 1024,
    maxWaitTimeInMs: 100,
    sessionTimeout,
    heartbeatInterval,
    retry: { retries: 10 },
  });
  const health = new ConsumerHealth(groupId);
  let crash!: (err: Error) => void;
  const crashed = new Promise<Error>((resolve) => (crash = resolve));
  consumer.on(consumer.events.CRASH, (e) => {
    const { error, restart } = e.payload as { error: Error; restart: boolean };
    health.onLeave();
    logger.error('consumer_crash', { groupId, error: error.message, restart });
    if (!restart) crash(error);
  });
  consumer.on(consumer.events.GROUP_JOIN, () => health.onJoin());
  consumer.on(consumer.events.REBALANCING, () => health.onLeave());
  consumer.on(consumer.events.STOP, () => health.onLeave());
  const backoff = opts.retryBackoff ?? { baseMs: 200, maxMs: 10_000 };

  /**
   * Runs the handler on one chunk until it succeeds. A retriable failure is retried with backoff (the
   * heartbeat goes on meanwhile, so the group keeps this member); `undefined` means the consumer
   * stopped or lost the partition while waiting: nothing was resolved, the records come again.
   */
  const apply = async (
    batch: PartitionBatch,
    stillOurs: () => boolean,
  ): Promise<BatchOutcome | undefined> => {
    health.onChunkStart();
    for (let attempt = 0; ; attempt++) {
      try {
        const outcome = await handler(batch);
        health.onChunkDone();
        return outcome;
      } catch (err) {
        const kind = classifyError(err);
        if (kind !== 'retriable') {
          // A bug, or a permanent failure the handler did not pin on one record: stop loudly rather
          // than loop over it or skip it. The supervisor restarts the process.
          logger.error('consumer_handler_failed', {
            groupId,
            topic: batch.topic,
            partition: batch.partition,
            kind,
            error: (err as Error)?.message,
          });
          crash(err as Error);
          throw err;
        }
        health.onRetry(err);
        const delayMs = backoffDelay(attempt, backoff);
        logger.warn('consumer_retrying', {
          groupId,
          topic: batch.topic,
          partition: batch.partition,
          attempt: attempt + 1,
          delay_ms: delayMs,
          ...describeFailure(err),
        });
        const until = Date.now() + delayMs;
        while (Date.now() < until) {
          if (!stillOurs()) return undefined;
          await new Promise((r) => setTimeout(r, Math.min(250, until - Date.now())));
        }
        if (!stillOurs()) return undefined;
      }
    }
  };

  try {
    await consumer.connect();
    await consumer.subscribe({ topics: [...topics], fromBeginning });
  } catch (err) {
    await consumer.disconnect().catch(() => {});
    throw err;
  }
  await consumer.run({
    eachBatchAutoResolve: false,
    autoCommit: true,
    autoCommitInterval: 1000,
    eachBatch: async ({ batch, resolveOffset, heartbeat, isRunning, isStale, commitOffsetsIfNecessary }) => {
      const all = batch.messages;
      const chunkAt = (i: number) =>
        all.slice(i, i + chunkSize).map((m): ConsumedRecord => ({
          topic: batch.topic,
          partition: batch.partition,
          offset: m.offset,
          key: m.key,
          value: m.value,
          timestamp: m.timestamp,
        }));
      let upcoming = all.length ? chunkAt(0) : [];
      for (let i = 0; i < all.length && isRunning() && !isStale(); i += chunkSize) {
        const records = upcoming;
        upcoming = i + chunkSize < all.length ? chunkAt(i + chunkSize) : [];
        // kafkajs heartbeats only when asked: a chunk slower than the session timeout (a loaded
        // machine, a large merge) would get this member evicted and cost a rebalance mid-backfill.
        const beat = setInterval(() => void heartbeat().catch(() => {}), heartbeatInterval);
        let outcome: BatchOutcome | undefined;
        try {
          outcome = await apply(
            {
              topic: batch.topic,
              partition: batch.partition,
              records,
              ...(upcoming.length ? { upcoming } : {}),
            },
            () => isRunning() && !isStale(),
          );
        } finally {
          clearInterval(beat);
        }
        if (outcome === undefined) return;
        if (outcome.kind === 'seek') {
          logger.warn('consumer_seek', {
            topic: batch.topic,
            partition: batch.partition,
            offset: outcome.offset,
          });
          consumer.seek({ topic: batch.topic, partition: batch.partition, offset: outcome.offset });
          return;
        }
        const last = records[records.length - 1]!.offset;
        resolveOffset(last);
        onLag?.(batch.topic, batch.partition, Math.max(0, Number(batch.highWatermark) - Number(last) - 1));
        await commitOffsetsIfNecessary();
        await heartbeat();
      }
    },
  });
  return {
    consumer,
    groupId,
    health,
    crashed,
    stop: async () => {
      await consumer.disconnect();
    },
  };
}
