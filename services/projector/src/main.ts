/**
 * The projector process: reads its configuration from the environment, ensures topics and the
 * read-model schema, folds the log into PostgreSQL, serves /metrics. SIGTERM/SIGINT stop it cleanly
 * (the current chunk commits or rolls back; nothing is lost either way). A consumer that crashes for
 * good exits non-zero so the supervisor restarts it.
 */
import { EventCodec } from '@holdfast/contracts';
import { createPool } from '@holdfast/db';
import { createKafka, ensureTopics } from '@holdfast/kafka';
import { createLogger, createMetricsRegistry } from '@holdfast/platform';
import { loadProjectorConfig } from './config.js';
import { configureCommerceMemory } from './projections/commerce/commerce.projection.js';
import { ProjectorMetrics } from './runtime/metrics.js';
import { startMetricsServer } from './runtime/metrics-server.js';
import { startProjector } from './runtime/start-projector.js';

const logger = createLogger('projector');
const config = loadProjectorConfig(process.env);
const pool = createPool(config.databaseUrl, 'holdfast-projector', 4);
const kafka = createKafka(config.kafkaBrokers, 'holdfast-projector', logger, config.kafkaSecurity);
const admin = kafka.admin();
await admin.connect();
await ensureTopics(admin, config.topicPrefix, config.partitions, config.topicReplication);
await admin.disconnect();
const codec = await EventCodec.connect(config.schemaRegistryUrl, { auth: config.registryAuth });
configureCommerceMemory(config.memoryBudget);
const registry = createMetricsRegistry('projector');
const metrics = new ProjectorMetrics(registry);
const projector = await startProjector(
  {
    topicPrefix: config.topicPrefix,
    readSchema: config.readSchema,
    projections: config.projections,
    chunkSize: config.chunkSize,
    sessionTimeoutMs: config.sessionTimeoutMs,
  },
  { pool, kafka, codec, logger, metrics },
);
const http = await startMetricsServer(registry, config.port);
logger.info('projector_ready', { metricsPort: http.port });

let stopping = false;
async function shutdown(code: number): Promise<void> {
  if (stopping) return;
  stopping = true;
  await projector.stop().catch((err: Error) => logger.error('projector_stop_failed', { error: err.message }));
  await http.close();
  await pool.end();
  process.exit(code);
}
process.on('SIGTERM', () => void shutdown(0));
process.on('SIGINT', () => void shutdown(0));
void projector.crashed.then((err) => {
  logger.error('projector_crashed', { error: err.message });
  void shutdown(1);
});
