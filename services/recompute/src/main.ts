// The recompute process: the sync-command consumer (scoring each task's account) and the nightly
// 02:00 UTC schedule on the real stack. Its ops listener (/healthz, /readyz, /metrics on
// HOLDFAST_OPS_PORT, default 9467) starts first; PostgreSQL, Kafka and the registry are waited for
// with backoff, never a reason to exit. SIGTERM/SIGINT stop it cleanly (runService).
import type { Kysely } from 'kysely';
import { sendsOnTrigger } from '@holdfast/domain';
import { createDb, createPool, migrateToLatest } from '@holdfast/postgres';
import { loadSecretsKeyring, loadUnsubscribeKeys } from '@holdfast/secrets';
import { startSyncOutboxRelay } from '@holdfast/control-plane';
import { DEFAULT_READ_MODEL_SCHEMA, READ_SCHEMA_SETTING } from '@holdfast/read-models';
import {
  connectKafka,
  consumerLag,
  kafkaDeadLetterPublisher,
  LogPositions,
  registerConsumerLag,
  syncCommandSender,
  topicName,
  TransactionalAppender,
  waitForLog,
} from '@holdfast/kafka';
import {
  ConfigError,
  createOutboundClient,
  EnvReader,
  poolOptions,
  readInfraConfig,
  readOpsConfig,
  readOutboundPolicy,
  retryBudgetCounter,
  runService,
  waitFor,
} from '@holdfast/platform';
import { createCampaignStep } from './campaigns/index.js';
import { migrateAnalytics, migrateCampaigns, migrateRecompute } from '@holdfast/migrations';
import { enqueueNightly } from './nightly/enqueue-nightly.js';
import { scheduleNightly } from './nightly/nightly-schedule.js';
import { scoreTaskAccount } from './scoring/recompute-account.js';
import { startSyncConsumer } from './sync-consumer.js';
import type { SyncTaskRef } from './sync-task-store.js';
import { watchSyncTasks } from './metrics.js';

const r = new EnvReader(process.env);
const config = r.done({
  infra: readInfraConfig(r),
  readModelSchema: r.string(READ_SCHEMA_SETTING, DEFAULT_READ_MODEL_SCHEMA),
  ops: readOpsConfig(r, 'HOLDFAST_OPS_PORT', 9467),
  // Provider sends leave through the guarded client: https, public destinations only by default.
  outbound: readOutboundPolicy(r),
  // Unsubscribe links point at the gateway's public URL; without it no email is sent.
  publicUrl: r.optional('HOLDFAST_PUBLIC_URL') ?? null,
  testMode: r.bool('HOLDFAST_TEST_MODE', false),
  providerMaxAttempts: r.int('HOLDFAST_PROVIDER_MAX_ATTEMPTS', 3, { min: 1, max: 10 }),
  // Sync tasks: how long one waits for the read models to pass its barrier, and a worker's lease.
  worker: {
    barrierTimeoutMs: r.int('HOLDFAST_SYNC_BARRIER_TIMEOUT_MS', 1_800_000, { min: 1_000, max: 86_400_000 }),
    leaseMs: r.int('HOLDFAST_SYNC_LEASE_MS', 60_000, { min: 3_000, max: 3_600_000 }),
  },
});
const { infra } = config;
// Both required in production: the master keys open the providers' credentials, the unsubscribe keys
// sign the links (the gateway verifies them with the same keys, and holds no master key).
const keyring = loadSecretsKeyring(process.env);
const unsubscribeKeys = loadUnsubscribeKeys(process.env);
// An unsubscribe link must work from any inbox: https, except on a test stack.
if (config.publicUrl && !config.publicUrl.startsWith('https://') && !config.testMode)
  throw new ConfigError('invalid configuration: HOLDFAST_PUBLIC_URL must be an https:// URL');
await runService({
  name: 'recompute',
  ops: config.ops,
  start: async (ctx) => {
    const { logger, registry, readiness, wait } = ctx;
    const pool = ctx.postgres(createPool(infra.databaseUrl, 'recompute', 4, poolOptions(infra, logger)));
    const kafka = connectKafka(infra, 'recompute', ctx);

    readiness.phase('waiting for postgres');
    await waitFor(
      'postgres',
      async () => {
        const db = createDb(pool) as Kysely<unknown>;
        await migrateToLatest(db);
        await migrateAnalytics(db);
        await migrateCampaigns(db);
        await migrateRecompute(db);
      },
      wait,
    );
    const codec = await waitForLog(kafka, infra, wait, (p) => readiness.phase(p));
    readiness.phase('starting the consumer');
    const producer = (name: string) =>
      waitFor(
        'kafka',
        async () => {
          const appender = await TransactionalAppender.create(kafka, {
            name: `${infra.topicPrefix}${name}`,
            size: 1,
          });
          ctx.onStop(name, () => appender.close());
          return appender;
        },
        wait,
      );
    const score = scoreTaskAccount({ pool, readModelSchema: config.readModelSchema, logger });
    // After an account's scores are written: audiences, sends, CampaignSent records, attribution, lift.
    const campaignAppender = await producer('recompute-campaigns');
    const campaigns = createCampaignStep(
      {
        topicPrefix: infra.topicPrefix,
        readModelSchema: config.readModelSchema,
        publicUrl: config.publicUrl,
        testMode: config.testMode,
        providerMaxAttempts: config.providerMaxAttempts,
      },
      {
        pool,
        appender: campaignAppender,
        codec,
        logger,
        outbound: createOutboundClient(config.outbound),
        outboundPolicy: config.outbound,
        keyring,
        unsubscribeKeys,
      },
    );
    const recompute = async (task: SyncTaskRef) => {
      const scored = await score(task);
      await campaigns(
        { accountId: task.accountId, taskId: task.taskId },
        { send: sendsOnTrigger(task.trigger) },
      );
      return scored;
    };
    const exhausted = retryBudgetCounter(registry);
    const deadLetters = kafkaDeadLetterPublisher(await producer('recompute-dlq'), codec, infra.topicPrefix);
    const appender = await producer('recompute-nightly');
    const consumer = await waitFor(
      'consumer',
      () =>
        startSyncConsumer(
          { ...config, stallMs: config.ops.consumerStallMs, retryBudget: config.ops.retryBudget },
          { pool, kafka, codec, logger, recompute, deadLetters, onRetryBudgetExhausted: exhausted },
        ),
      wait,
    );
    ctx.onStop('consumer', () => consumer.stop());
    const lag = consumerLag(kafka, consumer.groupId, [
      topicName(infra.topicPrefix, 'holdfast.sync-commands'),
    ]);
    ctx.onStop('consumer_lag', () => lag.close());
    registerConsumerLag(registry, [lag]);
    watchSyncTasks(registry, pool);
    const positions = LogPositions.create(kafka, infra.topicPrefix);
    // Closing positions that never connected may reject; nothing is left open then.
    ctx.onStop('log_positions', () => positions.close().catch(() => {}));
    const nightly = scheduleNightly({
      run: (firedAt) =>
        enqueueNightly({ pool, appender, codec, topicPrefix: infra.topicPrefix, positions }, firedAt),
      logger,
    });
    ctx.onStop('nightly', () => nightly.stop());
    // Sync commands left in the outbox (a process died after queueing them, or Kafka was away).
    const syncOutbox = startSyncOutboxRelay(
      createDb(pool),
      syncCommandSender(appender, infra.topicPrefix),
      logger,
    );
    ctx.onStop('sync_outbox_relay', () => syncOutbox.stop());
    readiness.add('consumer', () => consumer.health.check(config.ops.consumerStuckMs));
    return { crashed: consumer.crashed };
  },
});
