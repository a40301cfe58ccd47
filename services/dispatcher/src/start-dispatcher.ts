import type { Kysely } from 'kysely';
import type { EventCodec } from '@holdfast/contracts';
import { createDb, migrateToLatest, type Pool } from '@holdfast/postgres';
import { defaultSecretsKeyring, type SecretsKeyring } from '@holdfast/secrets';
import { sealPlaintextWebhookSecrets } from '@holdfast/control-plane';
import {
  consumerLag,
  kafkaDeadLetterPublisher,
  runExactlyOnce,
  topicName,
  TransactionalAppender,
  type ConsumerHealth,
  type DeadLetterPublisher,
  type LagSource,
  type KafkaClient,
} from '@holdfast/kafka';
import {
  createOutboundClient,
  defaultOutboundPolicy,
  describeFailure,
  NotReadyError,
  silentLogger,
  type Logger,
  type OutboundClient,
} from '@holdfast/platform';
import { fanOutEvents } from './event-fanout.js';
import { campaignBatchHandler } from './campaign-consumer.js';
import { pollOnce, type PollResult } from './delivery-poller.js';
import { Doorbell } from './doorbell.js';
import type { DispatcherMetrics } from './metrics.js';
import { migrateDispatcher } from '@holdfast/migrations';
import { RETRY_DELAYS_MS } from './retry-schedule.js';

/** What the dispatcher runs with. */
export interface DispatcherConfig {
  /** Prefix of every topic name (tests use one; production ''). */
  readonly topicPrefix: string;
  /** Consumer group; default `<prefix>holdfast.dispatcher`. */
  readonly groupId?: string;
  /** How often due retries are looked for (default 1,000 ms). New events wake the poller at once. */
  readonly pollIntervalMs?: number;
  /** Deliveries in flight at most, one pool for all subscriptions (default 50). */
  readonly batchSize?: number;
  /** Deliveries of one subscription in flight at most (default 4): a slow receiver holds no more. */
  readonly maxInFlightPerSubscription?: number;
  /** A receiver that does not answer within this is a failed attempt (default 10,000 ms). */
  readonly timeoutMs?: number;
  /** Waits before retries 1, 2, 3 (default 15, 30, 45 minutes: the spec's schedule). */
  readonly retryDelaysMs?: readonly number[];
  readonly sessionTimeoutMs?: number;
  /** Not joined nor fetching longer than this recreates the consumer (HOLDFAST_CONSUMER_STALL_MS). */
  readonly stallMs?: number;
}

/** The clients and seams it works through; the caller owns pool, kafka and codec. */
export interface DispatcherDeps {
  readonly pool: Pool;
  readonly kafka: KafkaClient;
  readonly codec: Pick<EventCodec, 'decode' | 'encode'>;
  readonly logger?: Logger;
  /** Where unreadable campaign records go; default: holdfast.dlq through a producer of its own. */
  readonly deadLetters?: DeadLetterPublisher;
  /** The clock due times are judged by (tests move it forward). Default: the system clock. */
  readonly now?: () => Date;
  /** Every delivery goes through it. Default: the guarded client under `defaultOutboundPolicy()`. */
  readonly outbound?: OutboundClient;
  /** Opens sealed signing secrets. Default: `defaultSecretsKeyring()` (HOLDFAST_SECRETS_KEYS). */
  readonly keyring?: SecretsKeyring;
  readonly metrics?: DispatcherMetrics;
}

export interface RunningDispatcher {
  /** Delivers everything due now (the background loop calls it too); resolves when done. */
  pollOnce(): Promise<PollResult>;
  /** Resolves if the consumer stops for good; the process should exit non-zero. */
  readonly crashed: Promise<Error>;
  /** The campaign consumer's state (joined, retrying, stuck), for /readyz. */
  readonly health: ConsumerHealth;
  /** Throws NotReadyError while the last poll failed (PostgreSQL away): for /readyz. */
  pollerCheck(): void;
  /** The campaign consumer group's lag per partition. */
  readonly lag: LagSource & { readonly groupId: string };
  stop(): Promise<void>;
}

/**
 * Starts the outbound-webhook dispatcher: migrates schema `dispatcher`, consumes holdfast.campaigns
 * (read_committed, exactly-once enqueue), and delivers due deliveries in a background loop. Pending
 * retries live in PostgreSQL, so a restarted dispatcher picks them up where the last one stopped.
 *
 * @example
 * const dispatcher = await startDispatcher({ topicPrefix: '' }, { pool, kafka, codec, logger });
 * process.on('SIGTERM', () => void dispatcher.stop());
 */
export async function startDispatcher(
  config: DispatcherConfig,
  deps: DispatcherDeps,
): Promise<RunningDispatcher> {
  const logger = deps.logger ?? silentLogger;
  const now = deps.now ?? (() => new Date());
  // The control plane (webhook subscriptions) first: on a fresh database the dispatcher may start
  // before any other service has migrated it.
  const db = createDb(deps.pool);
  await migrateToLatest(db as unknown as Kysely<unknown>);
  await migrateDispatcher(db as unknown as Kysely<unknown>);
  const keyring = deps.keyring ?? defaultSecretsKeyring();
  // Secrets stored before they were sealed are sealed now: the dispatcher is the one service that
  // holds the master key and must read them.
  const sealed = await sealPlaintextWebhookSecrets(db, keyring);
  if (sealed) logger.info('webhook_secrets_sealed', { count: sealed });
  const timeoutMs = config.timeoutMs ?? 10_000;
  const doorbell = new Doorbell();
  const pollOptions = {
    db,
    now,
    outbound: deps.outbound ?? createOutboundClient(defaultOutboundPolicy()),
    keyring,
    logger,
    metrics: deps.metrics,
    batchSize: config.batchSize ?? 50,
    maxInFlightPerSubscription: config.maxInFlightPerSubscription ?? 4,
    reclaimMs: config.pollIntervalMs ?? 1000,
    doorbell,
    timeoutMs,
    // Longer than any attempt can take, so a live poller never loses its claim mid-attempt.
    leaseMs: Math.max(60_000, 3 * timeoutMs),
    retryDelaysMs: config.retryDelaysMs ?? RETRY_DELAYS_MS,
  };

  // One poll at a time per process; a wake-up during a poll runs one more poll right after it.
  let running: Promise<PollResult> | null = null;
  let again = false;
  let stopped = false;
  // A failed poll (PostgreSQL away) is retried at the next tick; until one succeeds, not ready.
  let pollFailure: string | undefined;
  const poll = (): Promise<PollResult> => {
    if (running) {
      again = true;
      return running;
    }
    // Then the recorded occurrences of the planned events: deliveries made here go out in the poll
    // right after (the claim first, so a poll reads the clock when it starts, as before).
    running = pollOnce(pollOptions)
      .then(async (r) => {
        const created = await fanOutEvents(deps.pool, now());
        if (created) {
          deps.metrics?.onEnqueued(created);
          again = true;
        }
        return r;
      })
      .then(
        (r) => {
          pollFailure = undefined;
          return r;
        },
        (err: unknown) => {
          const d = describeFailure(err);
          pollFailure = d.code ? `${d.error} (${d.code})` : d.error;
          throw err;
        },
      );
    running = running.finally(() => {
      running = null;
      if (again && !stopped) {
        again = false;
        void poll().catch((err: Error) => logger.error('dispatcher_poll_failed', { error: err.message }));
      }
    });
    return running;
  };
  const tick = (): void => {
    void poll().catch((err: Error) => logger.error('dispatcher_poll_failed', { error: err.message }));
  };
  const timer = setInterval(tick, config.pollIntervalMs ?? 1000);
  timer.unref();

  const groupId = config.groupId ?? `${config.topicPrefix}holdfast.dispatcher`;
  const topics = [topicName(config.topicPrefix, 'holdfast.campaigns')];
  let dlqAppender: TransactionalAppender | undefined;
  let consumer: Awaited<ReturnType<typeof runExactlyOnce>>;
  try {
    const deadLetters =
      deps.deadLetters ??
      kafkaDeadLetterPublisher(
        (dlqAppender = await TransactionalAppender.create(deps.kafka, {
          name: `${config.topicPrefix}holdfast.dispatcher.dlq`,
          size: 1,
        })),
        deps.codec,
        config.topicPrefix,
      );
    consumer = await runExactlyOnce({
      kafka: deps.kafka,
      groupId,
      topics,
      logger,
      chunkSize: 500,
      sessionTimeoutMs: config.sessionTimeoutMs,
      stallMs: config.stallMs,
      handler: campaignBatchHandler({
        pool: deps.pool,
        codec: deps.codec,
        logger,
        now,
        deadLetters,
        onEnqueued: (n) => {
          deps.metrics?.onEnqueued(n);
          // A poll in progress (waiting beside a slow receiver) claims them at once; else a new one.
          doorbell.ring();
          tick();
        },
      }),
    });
  } catch (err) {
    // Start-up is retried by the caller while a dependency is away: leave nothing running behind.
    stopped = true;
    clearInterval(timer);
    await dlqAppender?.close().catch(() => {});
    throw err;
  }
  const lag = consumerLag(deps.kafka, groupId, topics);
  logger.info('dispatcher_started', { groupId });
  tick();

  return {
    pollOnce: async () => {
      // Wait for a poll in flight (it may have claimed what the caller expects), then run a fresh one.
      await running?.catch(() => undefined);
      return poll();
    },
    crashed: consumer.crashed,
    health: consumer.health,
    lag,
    pollerCheck: () => {
      if (pollFailure !== undefined) throw new NotReadyError(`delivery poller failing: ${pollFailure}`);
    },
    stop: async () => {
      stopped = true;
      clearInterval(timer);
      await consumer.stop();
      await running?.catch(() => undefined);
      await lag.close();
      await dlqAppender?.close();
    },
  };
}
