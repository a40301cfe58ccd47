import express, { type Express } from 'express';
import { createDb, type Pool } from '@holdfast/db';
import type { Appender, SinglePartitionAppender } from '@holdfast/kafka';
import { createMetricsRegistry, silentLogger, type Logger, type Registry } from '@holdfast/platform';
import { authenticate } from './auth/authenticate.js';
import { CredentialListener } from './auth/credential-listener.js';
import { CredentialStore } from './auth/credential-store.js';
import { LastUsedTracker } from './auth/last-used.js';
import { systemClock, type Clock } from './clock.js';
import type { GatewayConfig } from './config.js';
import type { GatewayContext } from './context.js';
import { BodyBudget, useBodyBudget } from './http/body-budget.js';
import { errorHandler, notFound } from './http/error-handler.js';
import { EventFactory, type Encoder } from './ingest/event-factory.js';
import { Janitor } from './janitor.js';
import { Limiter } from './limits/limiter.js';
import { RateCounter } from './limits/rate-counter.js';
import { createGatewayMetrics, noteMount, observeRequests } from './metrics.js';
import { buildOpenApiDocument } from './openapi/document.js';
import { createPixelRouter } from './pixel/pixel-router.js';
import { ReadModels } from './read-models.js';
import { accountRoute } from './routes/account.js';
import { batchesRoute } from './routes/batches.js';
import { customersRoute } from './routes/customers.js';
import { healthRoute } from './routes/health.js';
import { metricsRoute, postgresProbe, readyzRoute, type Probe } from './routes/operations.js';
import { ordersRoute } from './routes/orders.js';
import { syncRoute, syncStatusRoute } from './routes/sync.js';
import { SyncTasks } from './sync-tasks.js';
import { createWebhooksRouter } from './webhooks/webhooks-router.js';

/** What the gateway is built from; tests inject their own clock, appender or codec. */
export interface GatewayDeps {
  readonly pool: Pool;
  readonly appender: Appender;
  /**
   * POST /pixel/collect's appender (one request = one record batch on one partition). Defaults to
   * `appender`, whose transactions give the same all-or-none per request, only slower.
   */
  readonly pixelAppender?: SinglePartitionAppender;
  readonly codec: Encoder;
  readonly clock?: Clock;
  readonly logger?: Logger;
  readonly metricsRegistry?: Registry;
  /** Readiness probes besides PostgreSQL (main adds Kafka and the registry). */
  readonly probes?: Readonly<Record<string, Probe>>;
}

/** A built gateway: the express app plus what must be stopped with it. */
export interface Gateway {
  readonly app: Express;
  readonly janitor: Janitor;
  readonly lastUsed: LastUsedTracker;
  readonly credentials: CredentialStore;
  /** Stops background work and releases the LISTEN connection (not the injected pool or appender). */
  close(): Promise<void>;
}

/**
 * Builds the gateway: GET /readyz, /metrics, /v1/openapi.json, and the authenticated /ingest/*
 * routes of the spec, with errors mapped to the spec's bodies in one place.
 *
 * @example
 * const gateway = await createGateway(loadGatewayConfig(process.env), { pool, appender, codec });
 * gateway.app.listen(8080);
 */
export async function createGateway(config: GatewayConfig, deps: GatewayDeps): Promise<Gateway> {
  const clock = deps.clock ?? systemClock;
  const logger = deps.logger ?? silentLogger;
  const metrics = createGatewayMetrics(deps.metricsRegistry ?? createMetricsRegistry('gateway'));
  const counter = new RateCounter(deps.pool, config.unsafeLiftLimits);
  const credentials = new CredentialStore(deps.pool, config.credentialCacheMs);
  const listener = new CredentialListener(deps.pool, credentials, logger);
  const lastUsed = new LastUsedTracker(deps.pool, clock, logger, config.lastUsedFlushMs);
  const readModels = new ReadModels(deps.pool, config.readModelSchema);
  const janitor = new Janitor(counter, readModels, clock, logger);
  const ctx: GatewayContext = {
    config,
    pool: deps.pool,
    db: createDb(deps.pool),
    appender: deps.appender,
    events: new EventFactory(deps.codec, config.infra.topicPrefix),
    clock,
    logger,
    metrics,
    readModels,
    syncTasks: new SyncTasks(deps.pool),
  };
  await listener.start();
  lastUsed.start();
  janitor.start(config.janitorIntervalMs);

  const app = express();
  app.disable('x-powered-by');
  app.set('trust proxy', config.trustProxy);
  app.set('etag', false);
  app.use(observeRequests(metrics));
  app.use(useBodyBudget(new BodyBudget(config.bodyBudgetBytes)));

  const openapi = buildOpenApiDocument();
  app.get('/readyz', readyzRoute({ postgres: postgresProbe(deps.pool), ...deps.probes }));
  app.get('/metrics', metricsRoute(metrics.registry));
  app.get('/v1/openapi.json', (_req, res) => void res.json(openapi));

  const ingest = express.Router();
  ingest.use(noteMount);
  ingest.use(authenticate({ credentials, limiter: new Limiter(counter), lastUsed, clock }));
  ingest.get('/health', healthRoute(ctx));
  ingest.post('/orders', ordersRoute(ctx));
  ingest.post('/customers', customersRoute(ctx));
  ingest.patch('/account', accountRoute(ctx));
  ingest.post('/sync', syncRoute(ctx));
  ingest.get('/sync/:task_id', syncStatusRoute(ctx));
  ingest.get('/batches', batchesRoute(ctx));
  app.use('/ingest', ingest);
  app.use(createWebhooksRouter({ ...ctx, credentials, limiter: new Limiter(counter), lastUsed }));
  app.use(
    createPixelRouter({ ...ctx, pixelAppender: deps.pixelAppender ?? deps.appender, rateCounter: counter }),
  );

  app.use(notFound);
  app.use(errorHandler(logger));

  return {
    app,
    janitor,
    lastUsed,
    credentials,
    close: async () => {
      janitor.stop();
      await lastUsed.close();
      await listener.close();
    },
  };
}
