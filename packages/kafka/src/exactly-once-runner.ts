import type { ConsumedRecord, GroupConsumer, KafkaClient } from './ports.js';
import {
  backoffDelay,
  classifyError,
  countsAgainstRetryBudget,
  DEFAULT_RETRY_BUDGET,
  describeFailure,
  nextRetryStreak,
  retryBudgetExhausted,
  retryBudgetReason,
  type BackoffOptions,
  type Logger,
  type RetryStreak,
} from '@holdfast/platform';
import { ConsumerHealth } from './consumer-health.js';
import { watchConsumer } from './consumer-watchdog.js';

export type { ConsumedRecord } from './ports.js';

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
  /**
   * Set when this chunk failed with the same retriable error of its own (a statement timeout, a
   * deadlock: `countsAgainstRetryBudget`) `retryBudget` times in a row: the reason to dead-letter
   * with. The handler must now treat such a failure as the records' own (isolate and dead-letter the
   * records at fault, checkpoint past them) instead of throwing it again: if it throws it again, the
   * consumer crashes loudly rather than loop without end.
   */
  readonly retryBudgetExhausted?: string;
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
 * long as it takes, while the consumer reports not ready; anything else crashes the consumer. The
 * one bound: a failure of the chunk's own that repeats identically (`countsAgainstRetryBudget`: a
 * statement that always exceeds its timeout) `retryBudget` times in a row is handed back to the
 * handler as `retryBudgetExhausted`, to dead-letter.
 */
export type BatchHandler = (batch: PartitionBatch) => Promise<BatchOutcome>;

export interface RunnerOptions {
  readonly kafka: KafkaClient;
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
  /**
   * Neither joined nor fetching for longer than this (no chunk in flight) is a stall: the consumer is
   * recreated, and if that fails `crashed` resolves (HOLDFAST_CONSUMER_STALL_MS; default 90 s, above
   * the clients' 60 s rebalance timeout, so a slow rebalance is not taken for a stall).
   */
  readonly stallMs?: number;
  /**
   * One attempt at a chunk (one handler call) in flight longer than this is a hang: `crashed`
   * resolves and the process should exit (default 10 min, far above the pools' 35 s query timeout,
   * which ends an attempt stuck on a dead database connection with a retriable error first).
   */
  readonly attemptMaxMs?: number;
  /** Called with every group consumer the runner creates (the first and any recreated one). */
  readonly onConsumer?: (consumer: GroupConsumer) => void;
  /** Identical failures of one chunk in a row before it is handed back as `retryBudgetExhausted` (HOLDFAST_RETRY_BUDGET, default 10). */
  readonly retryBudget?: number;
  /** Called each time a chunk used up its retry budget (the `holdfast_retry_budget_exhausted_total` counter). */
  readonly onRetryBudgetExhausted?: () => void;
}

export interface RunningConsumer {
  /** The current group consumer (a stalled one is replaced: do not keep a reference). */
  readonly consumer: GroupConsumer;
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
  const stallMs = opts.stallMs ?? 90_000;
  const health = new ConsumerHealth(groupId, stallMs);
  let crash!: (err: Error) => void;
  const crashed = new Promise<Error>((resolve) => (crash = resolve));
  let consumer!: GroupConsumer;
  // Each group consumer is one generation; a retired one (replaced by the watchdog) must not report
  // on the health of its successor. (That it does not restart itself after a late crash is the
  // adapter's business: a stopped consumer never restarts.)
  let generation = 0;
  const create = (): GroupConsumer => {
    const gen = ++generation;
    const current = () => gen === generation;
    const c = kafka.groupConsumer({
      groupId,
      topics,
      fromBeginning,
      sessionTimeoutMs: sessionTimeout,
      heartbeatIntervalMs: heartbeatInterval,
    });
    c.on('crash', (error, restart) => {
      if (!current()) return;
      health.onLeave();
      logger.error('consumer_crash', { groupId, error: error.message, restart });
      if (!restart) crash(error);
    });
    c.on('join', () => current() && health.onJoin());
    c.on('fetch', () => current() && health.onFetch());
    c.on('leave', () => current() && health.onLeave());
    opts.onConsumer?.(c);
    return c;
  };
  const backoff = opts.retryBackoff ?? { baseMs: 200, maxMs: 10_000 };
  const budget = opts.retryBudget ?? DEFAULT_RETRY_BUDGET;

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
    let streak: RetryStreak | null = null;
    let exhausted: string | undefined;
    for (let attempt = 0; ; attempt++) {
      health.onAttemptStart();
      try {
        const outcome = await handler(exhausted ? { ...batch, retryBudgetExhausted: exhausted } : batch);
        health.onChunkDone();
        return outcome;
      } catch (err) {
        const kind = classifyError(err);
        const unhandled = exhausted !== undefined && countsAgainstRetryBudget(err);
        if (kind !== 'retriable' || unhandled) {
          // A bug, a permanent failure the handler did not pin on one record, or a used-up retry
          // budget it did not dead-letter: stop loudly rather than loop over it or skip it. The
          // supervisor restarts the process.
          logger.error('consumer_handler_failed', {
            groupId,
            topic: batch.topic,
            partition: batch.partition,
            kind: unhandled ? 'retries_exhausted' : kind,
            error: (err as Error)?.message,
          });
          crash(err as Error);
          throw err;
        }
        health.onRetry(err);
        streak = nextRetryStreak(streak, err);
        if (retryBudgetExhausted(streak, budget)) {
          // The same failure of its own, `budget` times in a row: it will not pass by waiting. The
          // handler gets the chunk once more, told to dead-letter what fails so (see PartitionBatch).
          exhausted = retryBudgetReason(streak!);
          opts.onRetryBudgetExhausted?.();
          logger.error('retry_budget_exhausted', {
            groupId,
            topic: batch.topic,
            partition: batch.partition,
            first_offset: batch.records[0]?.offset,
            records: batch.records.length,
            reason: exhausted,
          });
          continue;
        }
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
        while (Date.now() < until && stillOurs())
          await new Promise((r) => setTimeout(r, Math.min(250, until - Date.now())));
        if (!stillOurs()) {
          health.onChunkAbandoned();
          return undefined;
        }
      }
    }
  };

  /** Creates and runs a group consumer (a failed start leaves nothing connected). */
  const start = async (): Promise<GroupConsumer> => {
    const c = create();
    try {
      await c.run(async (batch, { resolveOffset, heartbeat, isRunning, isStale, commitResolved }) => {
        const all = batch.records;
        let upcoming = all.slice(0, chunkSize);
        for (let i = 0; i < all.length && isRunning() && !isStale(); i += chunkSize) {
          const records = upcoming;
          upcoming = i + chunkSize < all.length ? all.slice(i + chunkSize, i + 2 * chunkSize) : [];
          // Heartbeats go on while a chunk works: a chunk slower than the session timeout (a loaded
          // machine, a large merge) would otherwise get this member evicted and cost a rebalance.
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
            c.seek(batch.topic, batch.partition, outcome.offset);
            return;
          }
          const last = records[records.length - 1]!.offset;
          // The offset is committed only now, after the handler's database transaction committed.
          resolveOffset(last);
          if (batch.highWatermark !== undefined)
            onLag?.(
              batch.topic,
              batch.partition,
              Math.max(0, Number(batch.highWatermark) - Number(last) - 1),
            );
          await commitResolved();
          await heartbeat();
        }
      });
    } catch (err) {
      await c.stop().catch(() => {});
      throw err;
    }
    return c;
  };
  consumer = await start();
  const watchdog = watchConsumer({
    health,
    stallMs,
    // A fresh client's connect and join fail within this or hang: a client's own retries of a refused
    // connection take tens of seconds, and a join waits up to the 60 s rebalance timeout.
    recreateTimeoutMs: Math.max(stallMs, 90_000),
    attemptMaxMs: opts.attemptMaxMs ?? 600_000,
    logger,
    recreate: async () => {
      const old = consumer;
      generation++; // retire the old one before it stops: its leave and crash are not ours
      health.onLeave();
      await old.stop();
      consumer = await start();
    },
    giveUp: (err) => crash(err),
  });
  void crashed.then(() => watchdog.stop());
  return {
    get consumer() {
      return consumer;
    },
    groupId,
    health,
    crashed,
    stop: async () => {
      watchdog.stop();
      await consumer.stop();
    },
  };
}
