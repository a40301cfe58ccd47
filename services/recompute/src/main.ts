// The recompute process: the sync-command consumer (scoring each task's account) and the nightly
// 02:00 UTC schedule on the real stack. SIGTERM/SIGINT stop it cleanly.
import type { Kysely } from 'kysely';
import { EventCodec } from '@holdfast/contracts';
import { sendsOnTrigger } from '@holdfast/domain';
import { createDb, createPool, migrateToLatest } from '@holdfast/db';
import { createKafka, ensureTopics, LogPositions, TransactionalAppender } from '@holdfast/kafka';
import {
  createLogger,
  createOutboundClient,
  EnvReader,
  readInfraConfig,
  readOutboundPolicy,
} from '@holdfast/platform';
import { createCampaignStep, migrateCampaigns } from './campaigns/index.js';
import { migrateAnalytics } from './migrations/migrate-analytics.js';
import { enqueueNightly } from './nightly/enqueue-nightly.js';
import { scheduleNightly } from './nightly/nightly-schedule.js';
import { scoreTaskAccount } from './scoring/recompute-account.js';
import { startSyncConsumer } from './sync-consumer.js';
import type { SyncTaskRef } from './sync-task-store.js';

const r = new EnvReader(process.env);
const config = r.done({
  infra: readInfraConfig(r),
  readModelSchema: r.string('HOLDFAST_READ_SCHEMA', 'read_models'),
  // Provider sends leave through the guarded client: https, public destinations only by default.
  outbound: readOutboundPolicy(r),
  // Sync tasks: how long one waits for the read models to pass its barrier, and a worker's lease.
  worker: {
    barrierTimeoutMs: r.int('HOLDFAST_SYNC_BARRIER_TIMEOUT_MS', 1_800_000, { min: 1_000, max: 86_400_000 }),
    leaseMs: r.int('HOLDFAST_SYNC_LEASE_MS', 60_000, { min: 3_000, max: 3_600_000 }),
  },
});
const logger = createLogger('recompute');
const pool = createPool(config.infra.databaseUrl, 'recompute', 4);
const db = createDb(pool) as Kysely<unknown>;
await migrateToLatest(db);
await migrateAnalytics(db);
await migrateCampaigns(db);
const kafka = createKafka(config.infra.kafkaBrokers, 'recompute', logger, config.infra.kafkaSecurity);
const admin = kafka.admin();
await admin.connect();
await ensureTopics(admin, config.infra.topicPrefix, config.infra.partitions, config.infra.topicReplication);
await admin.disconnect();
const codec = await EventCodec.connect(config.infra.schemaRegistryUrl, { auth: config.infra.registryAuth });
const score = scoreTaskAccount({ pool, readModelSchema: config.readModelSchema, logger });
// After an account's scores are written: audiences, sends, CampaignSent records, attribution, lift.
const campaignAppender = await TransactionalAppender.create(kafka, {
  name: `${config.infra.topicPrefix}recompute-campaigns`,
  size: 1,
});
const campaigns = createCampaignStep(
  { topicPrefix: config.infra.topicPrefix, readModelSchema: config.readModelSchema },
  { pool, appender: campaignAppender, codec, logger, outbound: createOutboundClient(config.outbound) },
);
const recompute = async (task: SyncTaskRef) => {
  const scored = await score(task);
  await campaigns({ accountId: task.accountId, taskId: task.taskId }, { send: sendsOnTrigger(task.trigger) });
  return scored;
};
const consumer = await startSyncConsumer(config, { pool, kafka, codec, logger, recompute });
const appender = await TransactionalAppender.create(kafka, {
  name: `${config.infra.topicPrefix}recompute-nightly`,
  size: 1,
});
const positions = LogPositions.create(kafka, config.infra.topicPrefix);
const nightly = scheduleNightly({
  run: (firedAt) =>
    enqueueNightly({ pool, appender, codec, topicPrefix: config.infra.topicPrefix, positions }, firedAt),
  logger,
});
logger.info('recompute_started', {});

let stopping = false;
async function stop(signal: string): Promise<void> {
  if (stopping) return;
  stopping = true;
  logger.info('recompute_stopping', { signal });
  await nightly.stop();
  await consumer.stop();
  await appender.close();
  await campaignAppender.close();
  await positions.close().catch(() => {});
  await pool.end();
  process.exit(0);
}
process.on('SIGTERM', () => void stop('SIGTERM'));
process.on('SIGINT', () => void stop('SIGINT'));
void consumer.crashed.then((err) => {
  logger.error('recompute_consumer_crashed', { error: err.message });
  process.exit(1);
});
