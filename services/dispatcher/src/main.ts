/**
 * The dispatcher process: reads its configuration from the environment, ensures topics, migrates
 * schema `dispatcher`, consumes holdfast.campaigns and delivers signed campaign.sent webhooks with the
 * spec's retry schedule; serves /metrics. SIGTERM/SIGINT stop it cleanly: an attempt in flight finishes
 * and is recorded, or (if killed) its claim expires and it is retried.
 */
import { EventCodec } from '@holdfast/contracts';
import { createPool } from '@holdfast/db';
import { createKafka, ensureTopics } from '@holdfast/kafka';
import { createLogger, createMetricsRegistry, createOutboundClient } from '@holdfast/platform';
import { loadDispatcherConfig } from './config.js';
import { DispatcherMetrics } from './metrics.js';
import { startMetricsServer } from './metrics-server.js';
import { startDispatcher } from './start-dispatcher.js';

const logger = createLogger('dispatcher');
const config = loadDispatcherConfig(process.env);
const pool = createPool(config.infra.databaseUrl, 'holdfast-dispatcher', 4);
const kafka = createKafka(
  config.infra.kafkaBrokers,
  'holdfast-dispatcher',
  logger,
  config.infra.kafkaSecurity,
);
const admin = kafka.admin();
await admin.connect();
await ensureTopics(admin, config.infra.topicPrefix, config.infra.partitions, config.infra.topicReplication);
await admin.disconnect();
const codec = await EventCodec.connect(config.infra.schemaRegistryUrl, { auth: config.infra.registryAuth });
const registry = createMetricsRegistry('dispatcher');
const dispatcher = await startDispatcher(
  {
    topicPrefix: config.infra.topicPrefix,
    pollIntervalMs: config.pollIntervalMs,
    batchSize: config.batchSize,
    timeoutMs: config.timeoutMs,
  },
  {
    pool,
    kafka,
    codec,
    logger,
    metrics: new DispatcherMetrics(registry),
    outbound: createOutboundClient(config.outbound),
    keyring: config.keyring,
  },
);
const http = await startMetricsServer(registry, config.port);
logger.info('dispatcher_ready', { metricsPort: http.port });

let stopping = false;
async function shutdown(code: number): Promise<void> {
  if (stopping) return;
  stopping = true;
  await dispatcher
    .stop()
    .catch((err: Error) => logger.error('dispatcher_stop_failed', { error: err.message }));
  await http.close();
  await pool.end();
  process.exit(code);
}
process.on('SIGTERM', () => void shutdown(0));
process.on('SIGINT', () => void shutdown(0));
void dispatcher.crashed.then((err) => {
  logger.error('dispatcher_crashed', { error: err.message });
  void shutdown(1);
});
