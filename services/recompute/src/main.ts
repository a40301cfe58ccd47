// The recompute process: the sync-command consumer on the real stack. SIGTERM/SIGINT stop it cleanly.
import type { Kysely } from 'kysely';
import { EventCodec } from '@holdfast/contracts';
import { createDb, createPool, migrateToLatest } from '@holdfast/db';
import { createKafka, ensureTopics } from '@holdfast/kafka';
import { createLogger, EnvReader, readInfraConfig } from '@holdfast/platform';
import { startSyncConsumer } from './sync-consumer.js';

const r = new EnvReader(process.env);
const config = r.done({
  infra: readInfraConfig(r),
  readModelSchema: r.string('HOLDFAST_READ_SCHEMA', 'read_models'),
});
const logger = createLogger('recompute');
const pool = createPool(config.infra.databaseUrl, 'recompute', 4);
await migrateToLatest(createDb(pool) as Kysely<unknown>);
const kafka = createKafka(config.infra.kafkaBrokers, 'recompute', logger);
const admin = kafka.admin();
await admin.connect();
await ensureTopics(admin, config.infra.topicPrefix, config.infra.partitions);
await admin.disconnect();
const codec = await EventCodec.connect(config.infra.schemaRegistryUrl);
const consumer = await startSyncConsumer(config, { pool, kafka, codec, logger });
logger.info('recompute_started', {});

let stopping = false;
async function stop(signal: string): Promise<void> {
  if (stopping) return;
  stopping = true;
  logger.info('recompute_stopping', { signal });
  await consumer.stop();
  await pool.end();
  process.exit(0);
}
process.on('SIGTERM', () => void stop('SIGTERM'));
process.on('SIGINT', () => void stop('SIGINT'));
void consumer.crashed.then((err) => {
  logger.error('recompute_consumer_crashed', { error: err.message });
  process.exit(1);
});
