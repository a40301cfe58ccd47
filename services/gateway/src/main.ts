// The gateway process: configuration from the environment, real PostgreSQL, Kafka and registry.
// The ops listener (/healthz, /readyz, /metrics on HOLDFAST_OPS_PORT, default 9465) starts first and
// reports not-ready while PostgreSQL, Kafka or the registry are waited for (with backoff: a
// dependency that is not up yet is never a reason to exit). The public API listens on PORT (default
// 8080) once everything answers. The gateway runs no DDL of the read models: until the projector's
// start (or `holdfast migrate`) has created them, the API answers (ingest is appended, reads say
// "nothing yet") and /readyz reports `read_models` failing. SIGTERM/SIGINT (runService) stop
// accepting, finish in-flight requests, close.
import { once } from 'node:events';
import type { AddressInfo } from 'node:net';
import type { Kysely } from 'kysely';
import { createDb, createPool, migrateToLatest } from '@holdfast/postgres';
import { loadPrivacyKeyring, PgSubjectKeyStore } from '@holdfast/privacy';
import {
  connectKafka,
  IdempotentBatchAppender,
  LogPositions,
  TransactionalAppender,
  waitForLog,
} from '@holdfast/kafka';
import { EnvReader, poolOptions, readOpsConfig, runService, waitFor } from '@holdfast/platform';
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
const { infra } = config;

await runService({
  name: 'gateway',
  ops: opsConfig,
  // Spans from the request through the Kafka append.
  tracing: true,
  start: async (ctx) => {
    const { logger, registry, readiness, wait } = ctx;
    process.stdout.write(`gateway ops listening on http://${opsConfig.host}:${ctx.ops.port}\n`);
    const pool = ctx.postgres(createPool(infra.databaseUrl, 'gateway', 20, poolOptions(infra, logger)));
    const kafka = connectKafka(infra, 'gateway', ctx);
    const readModels = new ReadModels(pool, config.readModelSchema);
    readiness.add('read_models', () => readModels.ready());

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
    ctx.onStop('appender', () => appender.close());
    // POST /pixel/collect: a request's events share one key (the account id), so ONE produce request
    // of ONE record batch on ONE partition stores them all or none without a transaction (the
    // reasoning is on IdempotentBatchAppender; measured 1 round trip instead of 4 per request,
    // docs/performance.md).
    const pixelAppender = await waitFor(
      'kafka',
      () => IdempotentBatchAppender.create(kafka, { size: config.pixelProducerPoolSize }),
      wait,
    );
    ctx.onStop('pixel_appender', () => pixelAppender.close());
    // POST /ingest/sync reads the account's commerce partition's position for the sync's barrier.
    const logPositions = LogPositions.create(kafka, infra.topicPrefix);
    const privacyKeyring = loadPrivacyKeyring(process.env);
    // Closing positions that never connected may reject; nothing is left open then.
    ctx.onStop('log_positions', () => logPositions.close().catch(() => {}));
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
      // Loaded at start: without HOLDFAST_PRIVACY_KEYS in production the process does not start.
      subjectKeys: new PgSubjectKeyStore(pool, privacyKeyring),
      // Opens the sealed documents of GET /v1/exports/{id}/download.
      privacyKeyring,
    });
    ctx.onStop('gateway', () => gateway.close());
    // Header, request and keep-alive timeouts, and JSON answers to what the HTTP parser refuses.
    const server = createGatewayServer(gateway.app, config).listen(config.port, config.host);
    await once(server, 'listening');
    // Stopped first: no new connections, in-flight requests finish, idle keep-alives close now.
    ctx.onStop('http', () => {
      const closed = new Promise<void>((resolve) => server.close(() => resolve()));
      server.closeIdleConnections();
      return closed;
    });
    const { port } = server.address() as AddressInfo;
    logger.info('gateway_listening', { port, host: config.host, opsPort: ctx.ops.port });
    // One plain line on stdout whatever LOG_LEVEL says, so whoever started the process learns the port.
    process.stdout.write(`gateway listening on http://${config.host}:${port}\n`);
  },
});
