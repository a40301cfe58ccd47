import express, { type Express, type RequestHandler } from 'express';
import { createDb, type Pool } from '@holdfast/postgres';
import { startSettingsOutboxRelay, startSyncOutboxRelay } from '@holdfast/control-plane';
import type { SecretsKeyring } from '@holdfast/secrets';
import { settingsChangeSender } from './routes/account.js';
import {
  syncCommandSender,
  type Appender,
  type LogPositionSource,
  type SinglePartitionAppender,
} from '@holdfast/kafka';
import {
  defaultPrivacyKeyring,
  PgSubjectKeyStore,
  SubjectKeyCache,
  type SubjectKeyStore,
} from '@holdfast/privacy';
import {
  createMetricsRegistry,
  postgresProbe,
  Readiness,
  silentLogger,
  type Logger,
  type Registry,
} from '@holdfast/platform';
import { authenticate, authenticateOutbound, authenticateRead } from './auth/authenticate.js';
import { CredentialListener } from './auth/credential-listener.js';
import { CredentialStore, dbCredentialSource } from './auth/credential-store.js';
import { LastUsedTracker } from './auth/last-used.js';
import { refuseAnyKeyInQuery, refuseKeyInQuery } from './auth/refuse-key-in-query.js';
import { systemClock, type Clock } from './clock.js';
import type { GatewayConfig } from './config.js';
import type { GatewayContext } from './context.js';
import { accessLog } from './http/access-log.js';
import { createConsentRouter } from './consent/consent-router.js';
import { withRequestHeaders } from './http/request-context.js';
import { BodyBudget, useBodyBudget } from './http/body-budget.js';
import { errorHandler, notFound } from './http/error-handler.js';
import { EventFactory, type Encoder } from './ingest/event-factory.js';
import { Janitor } from './janitor.js';
import { Limiter } from './limits/limiter.js';
import { RateCounter } from './limits/rate-counter.js';
import { createGatewayMetrics, noteMount, observeRequests } from './metrics.js';
import { buildOpenApiDocument } from './openapi/document.js';
import { createPixelRouter } from './pixel/pixel-router.js';
import {
  erasureRoute,
  erasureStatusRoute,
  exportDownloadRoute,
  exportRoute,
  exportStatusRoute,
} from './privacy/privacy-routes.js';
import { SuppressionCache } from './privacy/suppression-cache.js';
import { ReadModels } from './read-models.js';
import { ingestRouter, ingestV1Router } from './routes/ingest-routes.js';
import { metricsRoute, readyzRoute } from './routes/operations.js';
import { readApiRouter } from './read-api/read-api-router.js';
import { reportsRouter } from './reports/reports-router.js';
import { createWebhooksRouter } from './webhooks/webhooks-router.js';
import { webhookManagementRouter } from './webhook-management/webhook-management-router.js';
import { claimSendRoute, confirmSendRoute } from './sends/sends-router.js';
import { SendStore } from './sends/send-store.js';

/** What the gateway is built from; tests inject their own clock, appender or codec. */
export interface GatewayDeps {
  readonly pool: Pool;
  readonly appender: Appender;
  /**
   * POST /pixel/collect's appender (one request = one record batch on one partition), also used for
   * the lone batch record of an ingest call that wrote nothing else. Defaults to `appender`, whose
   * transactions give the same all-or-none per request, only slower.
   */
  readonly pixelAppender?: SinglePartitionAppender;
  readonly codec: Encoder;
  /** The log's positions, read by POST /ingest/sync for its barrier (`LogPositions` on the real stack). */
  readonly logPositions: LogPositionSource;
  readonly clock?: Clock;
  readonly logger?: Logger;
  readonly metricsRegistry?: Registry;
  /** The checks behind /readyz; default: PostgreSQL only (main adds Kafka and the registry). */
  readonly readiness?: Readiness;
  /**
   * Whether the API app itself serves GET /readyz and /metrics (default true, for embedding and
   * in-process tests). The gateway process serves them on its ops listener and passes false unless
   * HOLDFAST_OPS_ON_API_PORT is set: operational endpoints stay off the public surface.
   */
  readonly opsOnApiPort?: boolean;
  /** The KEK ring of personal data (HOLDFAST_PRIVACY_KEYS). Default: the process's. */
  readonly privacyKeyring?: SecretsKeyring;
  /**
   * Where the subject keys personal data is encrypted with live. Default: PgSubjectKeyStore on `pool`
   * under HOLDFAST_PRIVACY_KEYS of the process (docs/privacy.md).
   */
  readonly subjectKeys?: SubjectKeyStore;
}

/** A built gateway: the express app plus what must be stopped with it. */
export interface Gateway {
  readonly app: Express;
  /** Its metrics (served on the ops listener by main). */
  readonly metricsRegistry: Registry;
  readonly janitor: Janitor;
  readonly lastUsed: LastUsedTracker;
  readonly credentials: CredentialStore;
  /** Stops background work and releases the LISTEN connection (not the injected pool or appender). */
  close(): Promise<void>;
}

/**
 * Builds the gateway: GET /v1/openapi.json, the authenticated /ingest/*
 * routes of the spec, with errors mapped to the spec's bodies in one place (and GET /readyz, /metrics
 * unless `opsOnApiPort` is false).
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
  const credentials = new CredentialStore(dbCredentialSource(deps.pool), config.credentialCacheMs);
  const listener = new CredentialListener(deps.pool, credentials, logger, config.credentialListenerPingMs);
  const lastUsed = new LastUsedTracker(deps.pool, clock, logger, config.lastUsedFlushMs);
  const readModels = new ReadModels(deps.pool, config.readModelSchema);
  const janitor = new Janitor(counter, clock, logger);
  const privacyKeyringOf = () => deps.privacyKeyring ?? defaultPrivacyKeyring();
  const privacyKeys = deps.subjectKeys ?? new PgSubjectKeyStore(deps.pool, privacyKeyringOf());
  const keyCache = new SubjectKeyCache(privacyKeys);
  const ctx: GatewayContext = {
    config,
    pool: deps.pool,
    db: createDb(deps.pool),
    appender: withRequestHeaders(deps.appender),
    recordAppender: deps.pixelAppender && withRequestHeaders(deps.pixelAppender),
    events: new EventFactory(deps.codec, config.infra.topicPrefix, keyCache, config.unsafeUnsealed),
    clock,
    logger,
    metrics,
    readModels,
    logPositions: deps.logPositions,
    suppressions: new SuppressionCache(deps.pool, {
      indexKey: (accountId) => keyCache.indexKey(accountId),
      keyGeneration: () => privacyKeys.keyGeneration(),
      blindIndex: (accountId, indexKey, kind, value) => keyCache.blindIndex(accountId, indexKey, kind, value),
    }),
  };
  // Sync commands left in the outbox (a process died after queueing, or Kafka was away): appended here.
  const syncOutbox = startSyncOutboxRelay(
    ctx.db,
    syncCommandSender(ctx.appender, config.infra.topicPrefix),
    logger,
  );
  // Timezone changes made in the console (which has no Kafka): appended here as AccountSettingsChanged.
  const settingsOutbox = startSettingsOutboxRelay(ctx.db, settingsChangeSender(ctx), logger);
  await listener.start();
  lastUsed.start();
  janitor.start(config.janitorIntervalMs);

  const app = express();
  app.disable('x-powered-by');
  app.set('trust proxy', config.trustProxy);
  app.set('etag', false);
  app.use(observeRequests(metrics));
  app.use(accessLog(logger));
  app.use(
    useBodyBudget(
      new BodyBudget(config.bodyBudgetBytes, {
        perKeyBytes: config.bodyBudgetPerKeyBytes,
        perAccountBytes: config.bodyBudgetPerAccountBytes,
      }),
    ),
  );
  app.use(refuseKeyInQuery);

  const openapi = buildOpenApiDocument();
  if (deps.opsOnApiPort ?? true) {
    const readiness = deps.readiness ?? new Readiness().add('postgres', postgresProbe(deps.pool));
    if (!deps.readiness) readiness.started();
    app.get('/readyz', readyzRoute(readiness));
    app.get('/metrics', metricsRoute(metrics.registry));
  }
  app.get('/v1/openapi.json', (_req, res) => void res.json(openapi));

  const authDeps = { credentials, limiter: new Limiter(counter), lastUsed, clock };
  const ingestAuth = authenticate(authDeps);
  app.use('/ingest', ingestRouter(ctx, ingestAuth));
  // The /v1/ surface (issue 24): the ingest routes again, and the read routes (docs/read-api.md).
  app.use('/v1', ingestV1Router(ctx, ingestAuth));
  // Erasure and access requests: the ingest key's authentication, limits and error bodies, per route
  // (the read routes beside them take read keys).
  const privacy = { keys: keyCache, keyring: privacyKeyringOf };
  const v1 = express.Router();
  const withIngestKey = (handler: RequestHandler): RequestHandler[] => [noteMount, ingestAuth, handler];
  v1.post('/erasures', ...withIngestKey(erasureRoute(ctx, privacy)));
  v1.get('/erasures/:erasure_id', ...withIngestKey(erasureStatusRoute(ctx)));
  v1.post('/exports', ...withIngestKey(exportRoute(ctx, privacy)));
  v1.get('/exports/:export_id', ...withIngestKey(exportStatusRoute(ctx)));
  v1.get('/exports/:export_id/download', ...withIngestKey(exportDownloadRoute(ctx, privacy)));
  // Send claim and confirm (docs/read-api.md): a write, so the ingest key's (read keys: 403).
  const sends = new SendStore(ctx.pool, ctx.config.readModelSchema);
  v1.post('/sends', ...withIngestKey(claimSendRoute(ctx, sends)));
  v1.post('/sends/:send_id/confirm', ...withIngestKey(confirmSendRoute(ctx, sends)));
  app.use('/v1', v1);
  app.use('/v1', readApiRouter(ctx, authenticateRead(authDeps)));
  // Webhook subscriptions and their deliveries, for the account's outbound (sk_live_) keys.
  app.use('/v1', webhookManagementRouter(ctx, authenticateOutbound(authDeps)));
  // The dashboards' aggregates (GET /v1/reports/{name}), for read keys like every /v1/ read.
  app.use('/v1', reportsRouter(ctx, authenticateRead(authDeps)));
  app.use('/v1', refuseAnyKeyInQuery);
  app.use(createWebhooksRouter({ ...ctx, credentials, limiter: new Limiter(counter), lastUsed }));
  app.use(
    createConsentRouter({
      ...ctx,
      // Its own keys only: no master key reaches the public edge (config.ts).
      unsubscribeKeys: config.unsubscribeKeys,
      inboundKeys: config.inboundKeys,
      limiter: new Limiter(counter),
      publicUrl: config.publicUrl,
      readModelSchema: config.readModelSchema,
    }),
  );
  app.use(
    createPixelRouter({
      ...ctx,
      pixelAppender: withRequestHeaders(deps.pixelAppender ?? deps.appender),
      pixelAppendStallMs: config.pixelAppendStallMs,
      rateCounter: counter,
    }),
  );

  app.use(notFound);
  app.use(errorHandler(logger));

  return {
    app,
    metricsRegistry: metrics.registry,
    janitor,
    lastUsed,
    credentials,
    close: async () => {
      await syncOutbox.stop();
      await settingsOutbox.stop();
      janitor.stop();
      await lastUsed.close();
      await listener.close();
    },
  };
}
