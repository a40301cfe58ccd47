// The gateway process: configuration from the environment, real PostgreSQL, Kafka and registry,
// HTTP on PORT (default 8080). SIGTERM/SIGINT stop accepting, finish in-flight requests, close cleanly.
import { once } from 'node:events';
import type { AddressInfo } from 'node:net';
import type { Kysely } from 'kysely';
import { EventCodec } from '@holdfast/contracts';
import { createDb, createPool, migrateToLatest } from '@holdfast/db';
import { createKafka, ensureTopics, IdempotentBatchAppender, TransactionalAppender } from '@holdfast/kafka';
import { createLogger } from '@holdfast/platform';
import { ensureReadModelSchema } from '@holdfast/projector';
import { createGateway } from './app.js';
import { loadGatewayConfig } from './config.js';
import { createGatewayServer } from './http/server.js';

const config = loadGatewayConfig(process.env);
const logger = createLogger('gateway');
const pool = createPool(config.infra.databaseUrl, 'gateway', 20);
await migrateToLatest(createDb(pool) as Kysely<unknown>);
// The gateway reads the projector's tables; creating them (idempotently) lets it answer before the
// projector's first start.
await ensureReadModelSchema(pool, config.readModelSchema);
const kafka = createKafka(config.infra.kafkaBrokers, 'gateway', logger);
const admin = kafka.admin();
await admin.connect();
await ensureTopics(admin, config.infra.topicPrefix, config.infra.partitions);
const codec = await EventCodec.connect(config.infra.schemaRegistryUrl);
const appender = await TransactionalAppender.create(kafka, {
  name: `${config.infra.topicPrefix}gateway`,
  size: config.producerPoolSize,
  // One HTTP batch = one Kafka transaction (DESIGN.md). Group commit (merging waiting appends into
  // one transaction) measured 1.4x on the pixel bench but is off: a failed merged transaction would
  // fail requests that were not at fault.
  groupCommit: false,
});
// POST /pixel/collect: a request's events share one key (the account id), so ONE produce request of
// ONE record batch on ONE partition stores them all or none without a transaction (the reasoning is
// on IdempotentBatchAppender; measured 1 round trip instead of 4 per request, docs/performance.md).
const pixelAppender = await IdempotentBatchAppender.create(kafka, { size: config.pixelProducerPoolSize });
const gateway = await createGateway(config, {
  pool,
  appender,
  pixelAppender,
  codec,
  logger,
  probes: {
    kafka: () => admin.describeCluster(),
    registry: async () => {
      const r = await fetch(`${config.infra.schemaRegistryUrl}/subjects`);
      if (!r.ok) throw new Error(`registry answered ${r.status}`);
    },
  },
});
// Header, request and keep-alive timeouts, and JSON answers to what the HTTP parser refuses.
const server = createGatewayServer(gateway.app, config).listen(config.port, config.host);
await once(server, 'listening');
const { port } = server.address() as AddressInfo;
logger.info('gateway_listening', { port, host: config.host });
// One plain line on stdout whatever LOG_LEVEL says, so whoever started the process learns the port.
process.stdout.write(`gateway listening on http://${config.host}:${port}\n`);

let stopping = false;
async function stop(signal: string): Promise<void> {
  if (stopping) return;
  stopping = true;
  logger.info('gateway_stopping', { signal });
  const hardStop = setTimeout(() => process.exit(1), 15_000);
  hardStop.unref();
  const closed = new Promise<void>((resolve) => server.close(() => resolve()));
  server.closeIdleConnections();
  await closed;
  await gateway.close();
  await appender.close();
  await pixelAppender.close();
  await admin.disconnect().catch(() => {});
  await pool.end();
  logger.info('gateway_stopped', { signal });
  process.exit(0);
}
process.on('SIGTERM', () => void stop('SIGTERM'));
process.on('SIGINT', () => void stop('SIGINT'));
