/**
 * The projector process: reads its configuration from the environment, starts its ops listener
 * (/healthz, /readyz, /metrics on PORT), waits for Kafka, the registry and PostgreSQL (with backoff:
 * a dependency that is not up yet is waited for, never a reason to exit), ensures topics and the
 * read-model schema, and folds the log into PostgreSQL; every 10 minutes it deletes what the spec's
 * retention rules expired (batch records past 90 days). SIGTERM/SIGINT stop it cleanly (the current
 * chunk commits or rolls back; nothing is lost either way). A consumer that crashes for good (a bug)
 * exits non-zero so the supervisor restarts it.
 */
import { createPool } from '@holdfast/db';
import { createKafka, kafkaProbe, registerConsumerLag, waitForLog } from '@holdfast/kafka';
import {
  createLogger,
  createMetricsRegistry,
  EnvReader,
  loadTracingConfig,
  postgresProbe,
  Readiness,
  readOpsConfig,
  registryProbe,
  startOpsServer,
  startTracing,
  waitFor,
} from '@holdfast/platform';
import { loadProjectorConfig } from './config.js';
import { selectProjections } from './projections/index.js';
import { startRetention, type Retention } from './retention.js';
import { ProjectorMetrics } from './runtime/metrics.js';
import { startProjector, type RunningProjector } from './runtime/start-projector.js';

const logger = createLogger('projector');
// Off unless OTEL_EXPORTER_OTLP_ENDPOINT is set: a span per request whose records a chunk applied.
const stopTracing = startTracing('holdfast-projector', loadTracingConfig(process.env));
const config = loadProjectorConfig(process.env);
const env = new EnvReader(process.env);
const opsConfig = env.done(readOpsConfig(env, 'PORT', 9464));
const registry = createMetricsRegistry('projector');
const metrics = new ProjectorMetrics(registry);
const readiness = new Readiness();
const ops = await startOpsServer({ ...opsConfig, registry, readiness });
logger.info('projector_ops_listening', { metricsPort: ops.port });

const pool = createPool(config.databaseUrl, 'holdfast-projector', 4, {
  statementTimeoutMs: config.pgStatementTimeoutMs,
  connectTimeoutMs: config.pgConnectTimeoutMs,
  logger,
});
const kafka = createKafka(
  config.kafkaBrokers,
  'holdfast-projector',
  logger,
  config.kafkaSecurity,
  config.kafkaClient,
);
const kafkaReady = kafkaProbe(kafka);
readiness
  .add('postgres', postgresProbe(pool))
  .add('kafka', kafkaReady)
  .add('registry', registryProbe(config.schemaRegistryUrl, config.registryAuth));

// Set once started; the signal handlers are installed before (a stop during start-up just exits).
const started: { projector?: RunningProjector; retention?: Retention } = {};
let stopping = false;
const aborted = new AbortController();
async function shutdown(code: number): Promise<void> {
  if (stopping) return;
  stopping = true;
  aborted.abort();
  // Still starting: nothing is half-done that a restart would not redo (crash-only start-up).
  const { projector } = started;
  if (!projector) process.exit(code);
  started.retention?.stop();
  await projector.stop().catch((err: Error) => logger.error('projector_stop_failed', { error: err.message }));
  await stopTracing().catch(() => {});
  await kafkaReady.close();
  await ops.close();
  await pool.end();
  process.exit(code);
}
process.on('SIGTERM', () => void shutdown(0));
process.on('SIGINT', () => void shutdown(0));

const wait = { logger, signal: aborted.signal };
const codec = await waitForLog(kafka, config, wait, (p) => readiness.phase(p));
readiness.phase('starting the consumer');
const projector = (started.projector = await waitFor(
  'projector',
  () =>
    startProjector(
      {
        topicPrefix: config.topicPrefix,
        readSchema: config.readSchema,
        projections: config.projections,
        memoryBudget: config.memoryBudget,
        chunkSize: config.chunkSize,
        sessionTimeoutMs: config.sessionTimeoutMs,
        stallMs: opsConfig.consumerStallMs,
      },
      { pool, kafka, codec, logger, metrics },
    ),
  wait,
));
// After startProjector: the read-model schema exists.
started.retention = startRetention(selectProjections(config.projections), {
  pool,
  schema: config.readSchema,
  logger,
  intervalMs: config.retentionIntervalMs,
});
registerConsumerLag(registry, [projector.lag]);
readiness.add('consumer', () => projector.health.check(opsConfig.consumerStuckMs));
readiness.started();
logger.info('projector_ready', { metricsPort: ops.port });
void projector.crashed.then((err) => {
  logger.error('projector_crashed', { error: err.message });
  void shutdown(1);
});
