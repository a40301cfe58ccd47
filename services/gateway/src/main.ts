// The gateway process: configuration from the environment, real PostgreSQL, Kafka and registry.
// The ops listener (/healthz, /readyz, /metrics on HOLDFAST_OPS_PORT, default 9465) starts first and
// reports not-ready while PostgreSQL, Kafka or the registry are waited for (with backoff: a
// dependency that is not up yet is never a reason to exit). The public API listens on PORT (default
// 8080) once everything answers. The gateway runs no DDL of the read models: until the projector's
// start (or `holdfast migrate`) has created them, the API answers (ingest is appended, reads say
// "nothing yet") and /readyz reports `read_models` failing. SIGTERM/SIGINT stop accepting, finish
// in-flight requests, close.
import { once } from 'node:events';
import type { AddressInfo } from 'node:net';
import type { Kysely } from 'kysely';
import { createDb, createPool, migrateToLatest } from '@holdfast/db';
import {
  createKafka,
  IdempotentBatchAppender,
  kafkaProbe,
  LogPositions,
  TransactionalAppender,
  waitForLog,
} from '@holdfast/kafka';
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
import { createGateway } from './app.js';
import { loadGatewayConfig } from './config.js';
import { createGatewayServer } from './http/server.js';
import { ReadModels } from './read-models.js';

const config = loadGatewayConfig(process.env);
const env = new EnvReader(process.env);
const opsConfig = env.done({
  ...readOpsConfig(env, 'HOLDFAST_OPS_PORT', 9465),
  // Also serve /readyz and /metrics on the public API port (off: they are operator surfaces).
  onApiPort: env.bool('HOLDFAST_OPS_ON_API_PORT', false),
});
const logger = createLogger('gateway');
// Off unless OTEL_EXPORTER_OTLP_ENDPOINT is set: spans from the request through the Kafka append.
const stopTracing = startTracing('holdfast-gateway', loadTracingConfig(process.env));
const registry = createMetricsRegistry('gateway');
const readiness = new Readiness();
const ops = await startOpsServer({ ...opsConfig, registry, readiness });
process.stdout.write(`gateway ops listening on http://${opsConfig.host}:${ops.port}\n`);

const { infra } = config;
const pool = createPool(infra.databaseUrl, 'gateway', 20, {
  statementTimeoutMs: infra.pgStatementTimeoutMs,
  connectTimeoutMs: infra.pgConnectTimeoutMs,
  logger,
});
const kafka = createKafka(infra.kafkaBrokers, 'gateway', logger, infra.kafkaSecurity, infra.kafkaClient);
const kafkaReady = kafkaProbe(kafka);
const readModels = new ReadModels(pool, config.readModelSchema);
readiness
  .add('postgres', postgresProbe(pool))
  .add('kafka', kafkaReady)
  .add('registry', registryProbe(infra.schemaRegistryUrl, infra.registryAuth))
  .add('read_models', () => readModels.ready());

const closers: (() => Promise<void>)[] = [];
let listening = false;
let stopping = false;
const aborted = new AbortController();
const wait = { logger, signal: aborted.signal };
process.on('SIGTERM', () => void stop('SIGTERM'));
process.on('SIGINT', () => void stop('SIGINT'));

readiness.phase('waiting for postgres');
await waitFor('postgres', () => migrateToLatest(createDb(pool) as Kysely<unknown>), wait);
const codec = await waitForLog(kafka, infra, wait, (p) => readiness.phase(p));
readiness.phase('starting producers');
const appender = await waitFor(
  'kafka',
  () =>
    TransactionalAppender.create(kafka, {
      name: `${infra.topicPrefix}gateway`,
      size: config.producerPoolSize,
      // One HTTP batch = one Kafka transaction (DESIGN.md). Group commit (merging waiting appends
      // into one transaction) measured 1.4x on the pixel bench but is off: a failed merged
      // transaction would fail requests that were not at fault.
      groupCommit: false,
    }),
  wait,
);
closers.push(() => appender.close());
// POST /pixel/collect: a request's events share one key (the account id), so ONE produce request of
// ONE record batch on ONE partition stores them all or none without a transaction (the reasoning is
// on IdempotentBatchAppender; measured 1 round trip instead of 4 per request, docs/performance.md).
const pixelAppender = await waitFor(
  'kafka',
  () => IdempotentBatchAppender.create(kafka, { size: config.pixelProducerPoolSize }),
  wait,
);
closers.push(() => pixelAppender.close());
// POST /ingest/sync reads the account's commerce partition's position for the sync's barrier.
const logPositions = LogPositions.create(kafka, infra.topicPrefix);
closers.push(() => logPositions.close().catch(() => {}));
const gateway = await createGateway(config, {
  pool,
  appender,
  pixelAppender,
  codec,
  logPositions,
  logger,
  metricsRegistry: registry,
  readiness,
  opsOnApiPort: opsConfig.onApiPort,
});
closers.unshift(() => gateway.close());
// Header, request and keep-alive timeouts, and JSON answers to what the HTTP parser refuses.
const server = createGatewayServer(gateway.app, config).listen(config.port, config.host);
await once(server, 'listening');
listening = true;
readiness.started();
const { port } = server.address() as AddressInfo;
logger.info('gateway_listening', { port, host: config.host, opsPort: ops.port });
// One plain line on stdout whatever LOG_LEVEL says, so whoever started the process learns the port.
process.stdout.write(`gateway listening on http://${config.host}:${port}\n`);

async function stop(signal: string): Promise<void> {
  if (stopping) return;
  stopping = true;
  aborted.abort();
  logger.info('gateway_stopping', { signal });
  // Still starting: nothing is half-done that a restart would not redo (crash-only start-up).
  if (!listening) process.exit(0);
  const hardStop = setTimeout(() => process.exit(1), 15_000);
  hardStop.unref();
  const closed = new Promise<void>((resolve) => server.close(() => resolve()));
  server.closeIdleConnections();
  await closed;
  for (const close of closers) await close().catch(() => {});
  await stopTracing().catch(() => {});
  await kafkaReady.close();
  await ops.close();
  await pool.end();
  logger.info('gateway_stopped', { signal });
  process.exit(0);
}
