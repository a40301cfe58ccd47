/**
 * The dispatcher process: reads its configuration from the environment, starts its ops listener
 * (/healthz, /readyz, /metrics on PORT), waits for Kafka, the registry and PostgreSQL (with backoff,
 * never exiting for a dependency that is not up yet), ensures topics, migrates schema `dispatcher`,
 * consumes holdfast.campaigns and delivers signed campaign.sent webhooks with the spec's retry
 * schedule. SIGTERM/SIGINT stop it cleanly: an attempt in flight finishes and is recorded, or (if
 * killed) its claim expires and it is retried.
 */
import { createPool } from '@holdfast/db';
import { createKafka, kafkaProbe, registerConsumerLag, waitForLog } from '@holdfast/kafka';
import {
  createLogger,
  createMetricsRegistry,
  createOutboundClient,
  EnvReader,
  postgresProbe,
  Readiness,
  readOpsConfig,
  registryProbe,
  startOpsServer,
  waitFor,
} from '@holdfast/platform';
import { loadDispatcherConfig } from './config.js';
import { DispatcherMetrics } from './metrics.js';
import { startDispatcher, type RunningDispatcher } from './start-dispatcher.js';

const logger = createLogger('dispatcher');
const config = loadDispatcherConfig(process.env);
const env = new EnvReader(process.env);
const opsConfig = env.done(readOpsConfig(env, 'PORT', 9466));
const registry = createMetricsRegistry('dispatcher');
const metrics = new DispatcherMetrics(registry);
const readiness = new Readiness();
const ops = await startOpsServer({ ...opsConfig, registry, readiness });
logger.info('dispatcher_ops_listening', { metricsPort: ops.port });

const { infra } = config;
const pool = createPool(infra.databaseUrl, 'holdfast-dispatcher', 4, {
  statementTimeoutMs: infra.pgStatementTimeoutMs,
  connectTimeoutMs: infra.pgConnectTimeoutMs,
  logger,
});
metrics.watchBacklog(registry, pool);
const kafka = createKafka(
  infra.kafkaBrokers,
  'holdfast-dispatcher',
  logger,
  infra.kafkaSecurity,
  infra.kafkaClient,
);
const kafkaReady = kafkaProbe(kafka);
readiness
  .add('postgres', postgresProbe(pool))
  .add('kafka', kafkaReady)
  .add('registry', registryProbe(infra.schemaRegistryUrl, infra.registryAuth));

// Set once started; the signal handlers are installed before (a stop during start-up just exits).
const started: { dispatcher?: RunningDispatcher } = {};
let stopping = false;
const aborted = new AbortController();
async function shutdown(code: number): Promise<void> {
  if (stopping) return;
  stopping = true;
  aborted.abort();
  // Still starting: nothing is half-done that a restart would not redo (crash-only start-up).
  const { dispatcher } = started;
  if (!dispatcher) process.exit(code);
  await dispatcher
    .stop()
    .catch((err: Error) => logger.error('dispatcher_stop_failed', { error: err.message }));
  await kafkaReady.close();
  await ops.close();
  await pool.end();
  process.exit(code);
}
process.on('SIGTERM', () => void shutdown(0));
process.on('SIGINT', () => void shutdown(0));

const wait = { logger, signal: aborted.signal };
const codec = await waitForLog(kafka, infra, wait, (p) => readiness.phase(p));
readiness.phase('starting the consumer');
const dispatcher = (started.dispatcher = await waitFor(
  'dispatcher',
  () =>
    startDispatcher(
      {
        topicPrefix: infra.topicPrefix,
        pollIntervalMs: config.pollIntervalMs,
        batchSize: config.batchSize,
        timeoutMs: config.timeoutMs,
        stallMs: opsConfig.consumerStallMs,
      },
      {
        pool,
        kafka,
        codec,
        logger,
        metrics,
        outbound: createOutboundClient(config.outbound),
        keyring: config.keyring,
      },
    ),
  wait,
));
registerConsumerLag(registry, [dispatcher.lag]);
readiness
  .add('consumer', () => dispatcher.health.check(opsConfig.consumerStuckMs))
  .add('poller', () => dispatcher.pollerCheck());
readiness.started();
logger.info('dispatcher_ready', { metricsPort: ops.port });
void dispatcher.crashed.then((err) => {
  logger.error('dispatcher_crashed', { error: err.message });
  void shutdown(1);
});
