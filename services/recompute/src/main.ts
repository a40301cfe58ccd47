// The recompute process: the sync-command consumer (scoring each task's account) and the nightly
// 02:00 UTC schedule on the real stack. Its ops listener (/healthz, /readyz, /metrics on
// HOLDFAST_OPS_PORT, default 9467) starts first; PostgreSQL, Kafka and the registry are waited for
// with backoff, never a reason to exit. SIGTERM/SIGINT stop it cleanly.
import type { Kysely } from 'kysely';
import { sendsOnTrigger } from '@holdfast/domain';
import { createDb, createPool, loadSecretsKeyring, migrateToLatest } from '@holdfast/db';
import { DEFAULT_READ_MODEL_SCHEMA, READ_SCHEMA_SETTING } from '@holdfast/read-models';
import {
  consumerLag,
  createKafka,
  kafkaDeadLetterPublisher,
  kafkaProbe,
  LogPositions,
  registerConsumerLag,
  topicName,
  TransactionalAppender,
  type RunningConsumer,
  waitForLog,
} from '@holdfast/kafka';
import {
  createLogger,
  createMetricsRegistry,
  ConfigError,
  createOutboundClient,
  EnvReader,
  postgresProbe,
  Readiness,
  readInfraConfig,
  readOpsConfig,
  readOutboundPolicy,
  registryProbe,
  startOpsServer,
  waitFor,
} from '@holdfast/platform';
import { createCampaignStep, migrateCampaigns } from './campaigns/index.js';
import { migrateAnalytics } from './migrations/migrate-analytics.js';
import { migrateRecompute } from './migrations/migrate-recompute.js';
import { enqueueNightly } from './nightly/enqueue-nightly.js';
import { scheduleNightly } from './nightly/nightly-schedule.js';
import { scoreTaskAccount } from './scoring/recompute-account.js';
import { startSyncConsumer } from './sync-consumer.js';
import type { SyncTaskRef } from './sync-task-store.js';

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
// An unsubscribe link must work from any inbox: https, except on a test stack.
if (config.publicUrl && !config.publicUrl.startsWith('https://') && !config.testMode)
  throw new ConfigError('invalid configuration: HOLDFAST_PUBLIC_URL must be an https:// URL');
const logger = createLogger('recompute');
const registry = createMetricsRegistry('recompute');
const readiness = new Readiness();
const ops = await startOpsServer({ ...config.ops, registry, readiness });
logger.info('recompute_ops_listening', { metricsPort: ops.port });

const pool = createPool(infra.databaseUrl, 'recompute', 4, {
  statementTimeoutMs: infra.pgStatementTimeoutMs,
  connectTimeoutMs: infra.pgConnectTimeoutMs,
  logger,
});
const kafka = createKafka(infra.kafkaBrokers, 'recompute', logger, infra.kafkaSecurity, infra.kafkaClient);
const kafkaReady = kafkaProbe(kafka);
readiness
  .add('postgres', postgresProbe(pool))
  .add('kafka', kafkaReady)
  .add('registry', registryProbe(infra.schemaRegistryUrl, infra.registryAuth));

const closers: (() => Promise<void>)[] = [];
// Set once started; the signal handlers are installed before (a stop during start-up just exits).
const started: { consumer?: RunningConsumer } = {};
let stopping = false;
const aborted = new AbortController();
async function stop(signal: string, code = 0): Promise<void> {
  if (stopping) return;
  stopping = true;
  aborted.abort();
  logger.info('recompute_stopping', { signal });
  // Still starting: nothing is half-done that a restart would not redo (crash-only start-up).
  if (!started.consumer) process.exit(code);
  for (const close of closers.reverse())
    await close().catch((err: Error) => logger.error('recompute_stop_failed', { error: err.message }));
  await kafkaReady.close();
  await ops.close();
  await pool.end();
  process.exit(code);
}
process.on('SIGTERM', () => void stop('SIGTERM'));
process.on('SIGINT', () => void stop('SIGINT'));

const wait = { logger, signal: aborted.signal };
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
      closers.push(() => appender.close());
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
    keyring: loadSecretsKeyring(process.env),
  },
);
const recompute = async (task: SyncTaskRef) => {
  const scored = await score(task);
  await campaigns({ accountId: task.accountId, taskId: task.taskId }, { send: sendsOnTrigger(task.trigger) });
  return scored;
};
const deadLetters = kafkaDeadLetterPublisher(await producer('recompute-dlq'), codec, infra.topicPrefix);
const appender = await producer('recompute-nightly');
const consumer = (started.consumer = await waitFor(
  'consumer',
  () =>
    startSyncConsumer(
      { ...config, stallMs: config.ops.consumerStallMs },
      { pool, kafka, codec, logger, recompute, deadLetters },
    ),
  wait,
));
closers.push(() => consumer.stop());
const lag = consumerLag(kafka, consumer.groupId, [topicName(infra.topicPrefix, 'holdfast.sync-commands')]);
closers.push(() => lag.close());
registerConsumerLag(registry, [lag]);
const positions = LogPositions.create(kafka, infra.topicPrefix);
closers.push(() => positions.close().catch(() => {}));
const nightly = scheduleNightly({
  run: (firedAt) =>
    enqueueNightly({ pool, appender, codec, topicPrefix: infra.topicPrefix, positions }, firedAt),
  logger,
});
closers.push(() => nightly.stop());
readiness.add('consumer', () => consumer.health.check(config.ops.consumerStuckMs));
readiness.started();
logger.info('recompute_started', { metricsPort: ops.port });

void consumer.crashed.then((err) => {
  logger.error('recompute_consumer_crashed', { error: err.message });
  void stop('crash', 1);
});
